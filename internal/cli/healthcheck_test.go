package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Issue 23: `earshot version`, `earshot --version` and `earshot -v` print the
// version, the commit, the build date, the Go version and the API version,
// and exit 0; the stamps given with -ldflags are what it prints.
func TestVersionPrintsTheBuild(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"-v"}} {
		code, out, errs := runCLI(t, nil, args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		for _, want := range []string{"earshot ", "(API version 2026-09-02)", "\ncommit: ", "\nbuilt:  ", "\ngo:     " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
	// --version is a top-level flag, not a command's: with more after it,
	// it is an unknown command (exit 2), not silently the version.
	if code, _, _ := runCLI(t, nil, "--version", "serve"); code != 2 {
		t.Errorf("--version serve: exit %d, want 2", code)
	}
}

// The -ldflags stamps win; an unstamped `go build` in a Git checkout falls
// back on the toolchain's vcs.revision (marked -dirty for a modified tree)
// and vcs.time, said to be the commit's time; a tagged module version
// replaces "dev". (A stamped binary is checked black-box in deploy/.)
func TestVersionStampsAndFallback(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "d5a6ce177010520b8147c10a0aa8a37b3799aa5e"}, {Key: "vcs.time", Value: "2026-11-27T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name  string
		stamp build
		info  *debug.BuildInfo
		want  build
	}{
		{"stamped", build{Version: "v1.2.3", Commit: "0123abc", Date: "2026-11-27T10:00:00Z"}, vcs,
			build{Version: "v1.2.3", Commit: "0123abc", Date: "2026-11-27T10:00:00Z"}},
		{"unstamped in a checkout", build{Version: "dev"}, vcs,
			build{Version: "dev", Commit: "d5a6ce177010520b8147c10a0aa8a37b3799aa5e-dirty", Date: "2026-11-27T12:00:00Z", DateIsCommit: true}},
		{"unstamped on a tag", build{Version: "dev"}, &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			build{Version: "v1.4.0", Commit: "unknown", Date: "unknown"}},
		{"no build info", build{Version: "dev"}, nil, build{Version: "dev", Commit: "unknown", Date: "unknown"}},
	} {
		if got := stampedBuild(tc.stamp, tc.info); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Issue 23: `earshot healthcheck` exits 0 on a healthy /healthz and 1 with a
// one-line reason otherwise, at the address serve reads (--addr or
// EARSHOT_ADDR), under the base URL's path when it has one.
func TestHealthcheckCommand(t *testing.T) {
	var lastPath string
	answer := func(w http.ResponseWriter, r *http.Request, code int, body string) {
		lastPath = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
	healthy := `{"status":"ok","checks":{"database":"ok"},"api_version":"2026-09-02","backend":"sqlite"}`
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { answer(w, r, 200, healthy) })
	mux.HandleFunc("/sub/path/healthz", func(w http.ResponseWriter, r *http.Request) { answer(w, r, 200, healthy) })
	mux.HandleFunc("/sick/healthz", func(w http.ResponseWriter, r *http.Request) {
		answer(w, r, 503, `{"status":"unavailable","checks":{"database":"failed","migrations":"ok"}}`)
	})
	mux.HandleFunc("/other/healthz", func(w http.ResponseWriter, r *http.Request) { answer(w, r, 200, `<html>hello</html>`) })
	mux.HandleFunc("/moved/healthz", func(w http.ResponseWriter, r *http.Request) {
		lastPath = r.URL.Path
		http.Redirect(w, r, "/login", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)

	for _, tc := range []struct {
		name     string
		env      map[string]string
		args     []string
		code     int
		path     string // the path the check asked last
		want     string // on stdout when healthy, stderr otherwise
		wantNot  string
		oneLine  bool
		noServer bool
	}{
		{name: "flag", args: []string{"--addr", addr}, code: 0, path: "/healthz", want: "healthy: http://" + addr + "/healthz (sqlite, API version 2026-09-02)"},
		{name: "variable", env: map[string]string{"EARSHOT_ADDR": addr}, code: 0, path: "/healthz", want: "healthy:"},
		{name: "wildcard address asks loopback", env: map[string]string{"EARSHOT_ADDR": "0.0.0.0:" + port}, code: 0, path: "/healthz", want: "http://127.0.0.1:" + port + "/healthz"},
		{name: "no host asks loopback", args: []string{"--addr", ":" + port}, code: 0, path: "/healthz", want: "http://127.0.0.1:" + port + "/healthz"},
		{name: "base URL path", env: map[string]string{"EARSHOT_ADDR": addr, "EARSHOT_BASE_URL": "https://earshot.example.com/sub/path/"}, code: 0, path: "/sub/path/healthz", want: "/sub/path/healthz"},
		{name: "prefix stripped by the proxy", env: map[string]string{"EARSHOT_ADDR": addr, "EARSHOT_BASE_URL": "https://earshot.example.com/stripped"}, code: 0, path: "/healthz", want: "http://" + addr + "/healthz"},
		{name: "unhealthy names the failed check", args: []string{"--addr", addr, "--base-url", "http://x.example/sick"}, code: 1, path: "/sick/healthz",
			want: "earshot healthcheck: unhealthy: http://" + addr + "/sick/healthz answered HTTP 503, unavailable: database failed\n", wantNot: "migrations", oneLine: true},
		{name: "not earshot", args: []string{"--addr", addr, "--base-url", "http://x.example/other"}, code: 1, want: "not Earshot's health answer", oneLine: true},
		{name: "redirect not followed", args: []string{"--addr", addr, "--base-url", "http://x.example/moved"}, code: 1, path: "/moved/healthz", want: "answered HTTP 302", oneLine: true},
		{name: "nothing listens", args: []string{"--addr", freeAddr(t)}, code: 1, want: "connection refused", oneLine: true, noServer: true},
		{name: "port 0", args: []string{"--addr", "127.0.0.1:0"}, code: 2, want: "port 0", noServer: true},
		{name: "bad address variable", env: map[string]string{"EARSHOT_ADDR": "nonsense"}, code: 2, want: "EARSHOT_ADDR", noServer: true},
		{name: "bad timeout", args: []string{"--timeout", "soon"}, code: 2, want: "-timeout", noServer: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lastPath = ""
			code, out, errs := runCLI(t, tc.env, append([]string{"healthcheck"}, tc.args...)...)
			got, other := out, errs
			if tc.code != 0 {
				got, other = errs, out
			}
			if code != tc.code || other != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q", code, tc.code, out, errs)
			}
			if !strings.Contains(got, tc.want) || (tc.wantNot != "" && strings.Contains(got, tc.wantNot)) {
				t.Errorf("output %q, want %q (and not %q)", got, tc.want, tc.wantNot)
			}
			if tc.oneLine && strings.Count(got, "\n") != 1 {
				t.Errorf("reason is not one line: %q", got)
			}
			if tc.path != "" && lastPath != tc.path {
				t.Errorf("asked %q, want %q", lastPath, tc.path)
			}
			if tc.noServer && lastPath != "" {
				t.Errorf("asked the server at %q", lastPath)
			}
		})
	}
}

// A serve that does not answer is unhealthy once --timeout has passed, not
// a check that hangs (Docker would pile them up).
func TestHealthcheckTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	done := make(chan struct{})
	var code int
	var errb bytes.Buffer
	go func() {
		defer close(done)
		code = run(context.Background(), []string{"healthcheck", "--addr", srv.Listener.Addr().String(), "--timeout", "100ms"},
			strings.NewReader(""), &bytes.Buffer{}, &errb, func(string) string { return "" })
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("healthcheck did not give up")
	}
	if code != 1 || !strings.Contains(errb.String(), "did not answer in time") {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
}

// Against the real serve: healthy while it runs, unhealthy (exit 1) once it
// has stopped.
func TestHealthcheckAgainstServe(t *testing.T) {
	env := map[string]string{"EARSHOT_DATA": t.TempDir(), "EARSHOT_LOG_LEVEL": "error", "EARSHOT_ADDR": freeAddr(t)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve"}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string { return env[k] })
	}()
	healthy := false
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, _, _ := runCLI(t, env, "healthcheck"); code == 0 {
			healthy = true
			break
		}
	}
	if !healthy {
		cancel()
		<-done
		t.Fatal("healthcheck never exited 0 against serve")
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	if code, _, errs := runCLI(t, env, "healthcheck"); code != 1 || !strings.Contains(errs, "unhealthy") {
		t.Fatalf("after serve stopped: exit %d, %q", code, errs)
	}
}
