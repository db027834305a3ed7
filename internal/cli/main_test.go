package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"earshot/store/storetest"
)

func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestAdminCLI(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	dbURL := storetest.URL(t) // "" on SQLite: the data dir
	if dbURL != "" {
		env["EARSHOT_DATABASE_URL"] = dbURL
	}
	code, out, errs := runCLI(t, env, "user", "create", "--email", "owner@example.com", "--password", "correct-horse-42")
	if code != 0 || len(strings.TrimSpace(out)) != 36 {
		t.Fatalf("user create: %d %q %q", code, out, errs)
	}
	// password from the environment; duplicate email refused
	env2 := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_PASSWORD": "second-horse-42", "EARSHOT_DATABASE_URL": dbURL}
	if code, _, errs := runCLI(t, env2, "user", "create", "--email", "OWNER@example.com"); code == 0 || !strings.Contains(errs, "exists") {
		t.Fatalf("duplicate user: %d %s", code, errs)
	}
	code, out, errs = runCLI(t, env, "project", "create", "--owner", "owner@example.com", "--name", "Acme", "--website", "https://acme.example")
	if code != 0 {
		t.Fatalf("project create: %d %s", code, errs)
	}
	var proj map[string]any
	if err := json.Unmarshal([]byte(out), &proj); err != nil || proj["plan"] != "unlimited" || proj["mention_quota"] != float64(0) || proj["slug"] != "acme" {
		t.Fatalf("project json %q %v", out, err)
	}
	pid := proj["id"].(string)
	if code, _, errs := runCLI(t, env, "project", "create", "--owner", "owner@example.com", "--name", strings.Repeat("x", 81)); code == 0 {
		t.Fatalf("81-char name accepted: %s", errs)
	}
	code, out, errs = runCLI(t, env, "key", "create", "--project", pid, "--scopes", "mentions:read,usage:read", "--name", "ci")
	key := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(key, "esk_") || strings.Count(out, "\n") != 1 {
		t.Fatalf("key create: %d %q %s", code, out, errs)
	}
	if code, _, _ := runCLI(t, env, "key", "create", "--project", pid, "--scopes", "everything"); code != 2 {
		t.Fatalf("bad scope exit %d", code)
	}
	code, out, _ = runCLI(t, env, "key", "list", "--project", pid)
	if code != 0 || !strings.Contains(out, key[:8]) || !strings.Contains(out, key[len(key)-4:]) || strings.Contains(out, key) {
		t.Fatalf("key list %q", out)
	}
	keyID := strings.Fields(out)[0]
	if code, out, errs := runCLI(t, env, "key", "revoke", "--key-id", keyID); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke %d %s %s", code, out, errs)
	}
	if code, _, errs := runCLI(t, env, "project", "set-plan", "--project", pid, "--plan", "starter"); code != 0 {
		t.Fatalf("set-plan %s", errs)
	}
	if code, _, _ := runCLI(t, env, "project", "set-plan", "--project", pid, "--plan", "platinum"); code != 2 {
		t.Fatal("unknown plan accepted")
	}
	backup := filepath.Join(t.TempDir(), "copy.db")
	if dbURL != "" {
		// PostgreSQL has its own backup tools: backup says which, and fails.
		if code, _, errs := runCLI(t, env, "backup", "--to", backup); code != 1 || !strings.Contains(errs, "pg_dump") {
			t.Fatalf("backup on PostgreSQL: exit %d %s", code, errs)
		}
		if _, err := os.Stat(backup); err == nil {
			t.Fatal("backup on PostgreSQL wrote a file")
		}
		return
	}
	if code, _, errs := runCLI(t, env, "backup", "--to", backup); code != 0 {
		t.Fatalf("backup: %s", errs)
	}
	if fi, err := os.Stat(backup); err != nil || fi.Size() == 0 {
		t.Fatalf("backup file: %v", err)
	}
	if code, _, _ := runCLI(t, env, "backup", "--to", backup); code == 0 {
		t.Fatal("backup overwrote an existing file")
	}
	if code, out, _ := runCLI(t, env, "version"); code != 0 || !strings.Contains(out, "2026-09-02") {
		t.Fatalf("version %q", out)
	}
	if code, _, _ := runCLI(t, env, "frobnicate"); code != 2 {
		t.Fatal("unknown command accepted")
	}
	if code, _, _ := runCLI(t, env, "user", "create", "--email", "x@example.com"); code != 2 {
		t.Fatal("missing password accepted")
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeGracefulShutdown: serve answers, and on cancellation (what
// SIGINT/SIGTERM trigger) finishes and returns 0 with the database closed.
func TestServeGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var out, errb bytes.Buffer
		done <- run(ctx, []string{"serve", "--addr", addr}, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	}()
	waitUntil(t, "serve to answer /healthz", done, func() bool { return healthy("http://" + addr) })
	m, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m.Body.Close()
	cancel()
	if code := waitDone(t, "serve", done); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	// the database is consistent and reusable after shutdown
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "after@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatalf("reopen: %s", errs)
	}
}

// An explicitly empty --scopes is a mistake, not a request for every scope;
// omitted, --scopes keeps its documented default (all).
func TestKeyCreateEmptyScopes(t *testing.T) {
	env := map[string]string{"EARSHOT_DATA": t.TempDir(), "EARSHOT_LOG_LEVEL": "error"}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "o@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := runCLI(t, env, "project", "create", "--owner", "o@example.com", "--name", "Acme")
	var proj struct{ ID string }
	if err := json.Unmarshal([]byte(out), &proj); code != 0 || err != nil {
		t.Fatalf("project create: %d %s", code, errs)
	}
	for _, scopes := range []string{"", " ", ",", " , "} {
		code, out, errs := runCLI(t, env, "key", "create", "--project", proj.ID, "--scopes", scopes)
		if code != 2 || out != "" || !strings.Contains(errs, "--scopes must name at least one scope, or 'all'") {
			t.Errorf("--scopes %q: exit %d, stdout %q, stderr %q", scopes, code, out, errs)
		}
	}
	if code, _, errs := runCLI(t, env, "key", "create", "--project", proj.ID); code != 0 {
		t.Fatalf("default scopes: %s", errs)
	}
	if code, _, errs := runCLI(t, env, "key", "create", "--project", proj.ID, "--scopes", "mentions:read,"); code != 0 {
		t.Fatalf("trailing comma: %s", errs)
	}
	_, out, _ = runCLI(t, env, "key", "list", "--project", proj.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Count(out, "mentions:read,") != 1 || !strings.Contains(out, "  mentions:read  active") {
		t.Errorf("keys:\n%s", out)
	}
}

// Issue 17: a database URL holds a password; no message of any command
// repeats it, whether the URL is refused, unparsable or unreachable.
func TestDatabaseURLPasswordNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runCLI(t, map[string]string{"EARSHOT_DATA": dir}, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	for _, u := range []string{"mysql://u:s3cret@127.0.0.1:1/db", "postgres://u:s3cret@127.0.0.1:1/db?sslmode=disable",
		"postgres://u:s3cret@127.0.0.1:1/db?sslmode=bogus", "postgres://u:s3cret@[bad/db"} {
		for _, args := range [][]string{{"key", "list", "--project", "x", "--database-url", u}, {"user", "create", "--email", "b@example.com", "--password", "correct-horse-42"},
			{"backup", "--to", filepath.Join(dir, "b.db")}, {"migrate", "--to", u}, {"bench", "--database-url", u, "--mentions", "1"},
			{"demo", "--addr", "127.0.0.1:0"}} {
			code, out, errs := runCLI(t, map[string]string{"EARSHOT_DATA": dir, "EARSHOT_DATABASE_URL": u}, args...)
			if code == 0 || strings.Contains(out+errs, "s3cret") || errs == "" {
				t.Errorf("earshot %s with %s: exit %d, printed %q %q", strings.Join(args, " "), u, code, out, errs)
			}
		}
	}
}
