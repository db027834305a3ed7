// Package api defines Earshot's public records: the JSON that REST
// responses, MCP tool results and webhook payloads carry, and that the
// OpenAPI output schemas are generated from (field names from the json
// tags, descriptions from the doc tags).
//
// Storage rows (package store) do not define public JSON. Each row is
// copied into its record by an explicit conversion (store/public.go), so a
// renamed column or row field cannot change a public surface without an
// edit here; the golden snapshots (server/testdata/outputschemas,
// server/testdata/outputbodies, deliver/testdata/webhook_*.json) hold the
// format still (docs/decisions.md#public-records).
//
// The package imports nothing of the project: the store encodes webhook
// payloads with it inside the transaction that records the event, and the
// capabilities return it.
package api
