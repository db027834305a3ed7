package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"earshot/store/storetest"
)

// A full disk (the SQLite database capped at its size, which SQLite
// reports exactly as a full disk): a write answers 507 STORAGE_FULL naming
// storage, on REST and MCP alike, /healthz says storage is full, nothing
// of the refused request is kept, and once space is back the same request
// with the same Idempotency-Key runs once and then replays.
func TestFullDiskAnswers507(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("simulated with SQLite's max_page_count; PostgreSQL's disk_full maps through the same store.IsStorageFull")
	}
	e := newAgentsEnv(t)
	ctx := context.Background()
	lift, err := e.st.CapSQLiteSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	liftOnce := func() {
		if lift != nil {
			if err := lift(); err != nil {
				t.Fatal(err)
			}
			lift = nil
		}
	}
	defer liftOnce()
	// Fill what the database's pages still hold: monitors with long feed
	// lists until a create is refused.
	feeds := make([]string, 50)
	for i := range feeds {
		feeds[i] = "https://example.com/" + strings.Repeat("f", 1900) + itoa(i)
	}
	monitor := func(name string) map[string]any {
		return map[string]any{"name": name, "feed_urls": feeds, "sources": []string{"news"}}
	}
	status, body := 0, map[string]any{}
	for i := 0; i < 500; i++ {
		status, body = e.rest("POST", "/api/v1/monitors", e.key, monitor("Filler "+itoa(i)))
		if status != http.StatusOK {
			break
		}
	}
	if status != http.StatusInsufficientStorage {
		t.Fatalf("a write on a full disk answered %d %v, want 507", status, body)
	}
	errObj, _ := body["error"].(map[string]any)
	if errObj["code"] != "STORAGE_FULL" || !strings.Contains(errObj["message"].(string), "storage is full") {
		t.Fatalf("507 body %v", body)
	}

	// The same create with an Idempotency-Key: 507, nothing kept.
	req := func(key string) (int, map[string]any) {
		b, _ := json.Marshal(monitor("Keyed"))
		r, _ := http.NewRequest("POST", e.http.URL+"/api/v1/monitors", strings.NewReader(string(b)))
		r.Header.Set("Authorization", "Bearer "+e.key)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if st, b := req("full-disk-key-1"); st != http.StatusInsufficientStorage {
		t.Fatalf("idempotent create on a full disk: %d %v", st, b)
	}

	// MCP says the same.
	cs := e.overHTTP(e.key)
	a := callTool(t, cs, "create_monitor", map[string]any{"name": "Via MCP", "feed_urls": feeds, "sources": []string{"news"}, "idempotency_key": "full-disk-mcp-1"})
	if !a.isError || a.errCode() != "STORAGE_FULL" {
		t.Fatalf("MCP on a full disk: %v", a.env)
	}

	var hz map[string]any
	resp, err := http.Get(e.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&hz)
	resp.Body.Close()
	if checks, _ := hz["checks"].(map[string]any); resp.StatusCode != 200 || hz["status"] != "degraded" || checks["storage"] != "full" {
		t.Fatalf("healthz on a full disk: %d %v", resp.StatusCode, hz)
	}

	liftOnce() // space is back
	st1, b1 := req("full-disk-key-1")
	st2, b2 := req("full-disk-key-1")
	if st1 != 200 || st2 != 200 {
		t.Fatalf("after space returned: %d %v / %d %v", st1, b1, st2, b2)
	}
	if b1["meta"].(map[string]any)["idempotencyReplayed"] != false || b2["meta"].(map[string]any)["idempotencyReplayed"] != true ||
		b1["data"].(map[string]any)["id"] != b2["data"].(map[string]any)["id"] {
		t.Fatalf("retry with the key: first %v, second %v", b1["meta"], b2["meta"])
	}
	_, list := e.rest("GET", "/api/v1/monitors", e.key, nil)
	keyed := 0
	for _, m := range list["data"].(map[string]any)["monitors"].([]any) {
		if m.(map[string]any)["name"] == "Keyed" || m.(map[string]any)["name"] == "Via MCP" {
			keyed++
		}
	}
	if keyed != 1 {
		t.Fatalf("%d monitors from the keyed requests, want 1 (the refused ones kept nothing, the retry ran once)", keyed)
	}
	resp, err = http.Get(e.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hz = nil
	json.NewDecoder(resp.Body).Decode(&hz)
	resp.Body.Close()
	if checks, _ := hz["checks"].(map[string]any); hz["status"] != "ok" || checks["storage"] != "ok" {
		t.Fatalf("healthz after a write succeeded again: %v", hz)
	}
}
