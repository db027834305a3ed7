// Package deliver owns the transport half of webhook and alert delivery:
// Standard Webhooks signing, the SSRF guard that decides which addresses a
// webhook may reach, one signed HTTP attempt and how to read its outcome,
// the retry schedule, and the email and Slack alert channels.
//
// The Worker (worker.go) is the stateful half: it fans outbox events out to
// webhook deliveries and alert notifications, sends them in order per
// webhook with leases held in the database, and records every attempt.
package deliver
