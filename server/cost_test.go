package server_test

import (
	"net/http"
	"strings"
	"testing"

	"earshot/capability"
	"earshot/server"
)

// restUntilLimited sends GET path with token one by one until a 429 and
// returns how many were answered first.
func restUntilLimited(t *testing.T, e *env, path, token string) int {
	t.Helper()
	for n := 0; n < 1000; n++ {
		r := e.do("GET", path, token, nil)
		if r.status == http.StatusTooManyRequests {
			return n
		}
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
		}
	}
	t.Fatalf("GET %s never limited", path)
	return 0
}

// TestHeavyOperationsCostMore: over REST and /mcp an export takes
// capability.CostExport tokens of the key's bucket and statistics
// CostAggregate; a list takes one.
func TestHeavyOperationsCostMore(t *testing.T) {
	const burst = 40
	e := newEnv(t, server.Options{RateLimit: 0.001, RateBurst: burst})
	if r := e.do("GET", "/api/v1/exports/mentions", e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
	if n := restUntilLimited(t, e, "/api/v1/monitors", e.keyA); n != burst-capability.CostExport {
		t.Errorf("after one REST export %d list calls were left, want %d", n, burst-capability.CostExport)
	}

	m := newEnv(t, server.Options{RateLimit: 0.001, RateBurst: burst})
	if st, body := mcpRaw(t, m, m.keyA, batch(2, "get_mention_stats")); st != http.StatusOK || strings.Count(body, `"jsonrpc"`) != 2 {
		t.Fatalf("stats batch: %d %.300s", st, body)
	}
	if n := restUntilLimited(t, m, "/api/v1/monitors", m.keyA); n != burst-2*capability.CostAggregate {
		t.Errorf("after two MCP statistics calls %d list calls were left, want %d", n, burst-2*capability.CostAggregate)
	}
}
