// Package deliver owns the transport half of webhook and alert delivery:
// one signed HTTP attempt (signing is webhooksig's, the guarded client
// netguard's) and how to read its outcome, the retry schedule, and the
// email and Slack alert channels.
//
// The Worker (worker.go) is the stateful half: it fans outbox events out to
// webhook deliveries and alert notifications, sends them in order per
// webhook with leases held in the database, and records every attempt.
package deliver
