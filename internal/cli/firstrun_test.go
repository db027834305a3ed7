package cli

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"earshot/store/storetest"
)

// startServeWatched starts `earshot serve` as a child process (the test
// binary re-executed) on env and returns its base URL and its stderr
// lines; killed when the test ends.
func startServeWatched(t *testing.T, env []string) (string, *lineWatcher) {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr)
	cmd.Env = append(os.Environ(), append([]string{"EARSHOT_TEST_AS_CLI=1"}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := watchLines(stderr)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-w.eof
		cmd.Wait()
	})
	return "http://" + addr, w
}

// Issue 23: a fresh installation's /setup is not handed to whoever
// reaches it first. serve prints the setup link with a one-time token in
// its log; /setup refuses without it and stops working once the owner
// exists. On PostgreSQL two processes print (and accept) the same token.
func TestServePrintsSetupToken(t *testing.T) {
	env := []string{"EARSHOT_DATA=" + t.TempDir(), "EARSHOT_LOG_LEVEL=warn"}
	if u := storetest.URL(t); u != "" {
		env = append(env, "EARSHOT_DATABASE_URL="+u)
	}
	base, log := startServeWatched(t, env)
	re := regexp.MustCompile(`no user yet: open (http://\S+)/setup\?token=([0-9a-f]+) to create the owner`)
	m := log.wait(t, re)
	if m[1] != base {
		t.Errorf("setup link on %s, serve on %s", m[1], base)
	}
	token := m[2]
	if len(token) < 32 {
		t.Fatalf("token %q: fewer than 128 bits", token)
	}
	if storetest.Postgres() {
		_, log2 := startServeWatched(t, env)
		if m2 := log2.wait(t, re); m2[2] != token {
			t.Errorf("two processes on one database print different tokens: %s, %s", token, m2[2])
		}
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post := func(tok, email string) (int, string) {
		t.Helper()
		u, _ := url.Parse(base)
		csrf := ""
		for _, ck := range jar.Cookies(u) {
			if ck.Name == "earshot_precsrf" {
				csrf = ck.Value
			}
		}
		resp, err := c.PostForm(base+"/setup", url.Values{"_csrf": {csrf}, "token": {tok}, "email": {email},
			"password": {"correct-horse-42"}, "project_name": {"Acme"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	if st, body := get("/setup"); st != 200 || strings.Contains(body, `name="project_name"`) {
		t.Fatalf("GET /setup without the token: %d, shows the owner form: %v", st, strings.Contains(body, `name="project_name"`))
	}
	if st, _ := post("", "o@example.com"); st != http.StatusForbidden {
		t.Fatalf("POST /setup without the token: %d", st)
	}
	if st, _ := post(strings.Repeat("ab", 16), "o@example.com"); st != http.StatusForbidden {
		t.Fatalf("POST /setup with a wrong token: %d", st)
	}
	if st, body := get("/setup?token=" + token); st != 200 || !strings.Contains(body, `name="project_name"`) {
		t.Fatalf("GET /setup with the token: %d", st)
	}
	if st, loc := post(token, "o@example.com"); st != http.StatusSeeOther || loc != "/monitors/new" {
		t.Fatalf("POST /setup with the token: %d %q", st, loc)
	}
	// Once the owner exists the token opens nothing.
	if st, loc := post(token, "intruder@example.com"); st != http.StatusSeeOther || loc != "/login" {
		t.Fatalf("POST /setup with the token after setup: %d %q", st, loc)
	}
	if st, _ := get("/setup?token=" + token); st != http.StatusSeeOther {
		t.Fatalf("GET /setup with the token after setup: %d", st)
	}
}
