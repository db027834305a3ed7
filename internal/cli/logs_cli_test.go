package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveLogged runs `earshot serve` as a child process (the test binary
// re-executed, see main_mcp_test.go) in dir, its stderr in a file, and
// waits for /healthz with a bound of minutes (a loaded machine is slow).
func serveLogged(t *testing.T, dir string, env []string, args ...string) (base, logFile string) {
	t.Helper()
	addr := freePort(t)
	logFile = filepath.Join(t.TempDir(), "serve.log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"EARSHOT_TEST_AS_CLI=1"}, env...)...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return "http://" + addr, logFile
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(logFile)
	t.Fatalf("serve did not start:\n%s", b)
	return "", ""
}

// waitLogLine waits (minutes at most) for a JSON log line that match
// accepts; every line of the file must be JSON.
func waitLogLine(t *testing.T, logFile string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		b, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for _, line := range lines[:len(lines)-1] { // the last one may be half written
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("a log line is not JSON: %q", line)
			}
			if match(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no such log line:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// EARSHOT_LOG_FORMAT=json: every line is a JSON object; the data dir is
// logged with its absolute path, and as new the first time; each request
// has one line with client, method, route, status, duration and request id.
func TestServeLogsJSON(t *testing.T) {
	dir := t.TempDir()
	env := []string{"EARSHOT_LOG_FORMAT=json", "EARSHOT_DATA=data"} // relative to dir
	abs, _ := filepath.EvalSymlinks(dir)
	want := filepath.Join(abs, "data")

	base, logFile := serveLogged(t, dir, env)
	l := waitLogLine(t, logFile, func(m map[string]any) bool { return m["msg"] == "created new data dir" })
	if got, _ := l["path"].(string); got != want && got != filepath.Join(dir, "data") {
		t.Fatalf("new data dir logged as %q, want %q", got, want)
	}
	resp, err := http.Get(base + "/api/v1/monitors/mon_1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	l = waitLogLine(t, logFile, func(m map[string]any) bool { return m["msg"] == "request" && m["request_id"] == id })
	if l["client"] != "127.0.0.1" || l["method"] != "GET" || l["route"] != "/api/v1/monitors/:id" || l["status"] != float64(401) || l["level"] != "INFO" {
		t.Fatalf("request line %v", l)
	}
	if _, ok := l["duration_ms"].(float64); !ok {
		t.Fatalf("request line without duration_ms: %v", l)
	}
}

// A second start on the same data dir names it, and not as new.
func TestServeLogsAnExistingDataDir(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runCLI(t, map[string]string{"EARSHOT_DATA": filepath.Join(dir, "data")}, "user", "create", "--email", "o@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatalf("user create: %s", errs)
	}
	_, logFile := serveLogged(t, dir, []string{"EARSHOT_DATA=data"}, "--log-format", "json")
	l := waitLogLine(t, logFile, func(m map[string]any) bool {
		return m["msg"] == "data dir" || m["msg"] == "created new data dir"
	})
	if l["msg"] != "data dir" || !filepath.IsAbs(l["path"].(string)) || !strings.HasSuffix(l["path"].(string), string(filepath.Separator)+"data") {
		t.Fatalf("existing data dir logged as %v", l)
	}
}
