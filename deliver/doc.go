// Package deliver owns the transport half of webhook and alert delivery:
// Standard Webhooks signing, the SSRF guard that decides which addresses a
// webhook may reach, one signed HTTP attempt and how to read its outcome,
// the retry schedule, and the email and Slack alert channels.
//
// It keeps no state. The outbox worker that stores deliveries, picks the
// next one per webhook and records results is built on top of it: it calls
// Send (or PostSlack, or SendEmail), stores the Result, and asks
// Schedule.Next when to try again.
package deliver
