package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"earshot/capability"
)

// runCLIWithStdin is runCLI with standard input.
func runCLIWithStdin(t *testing.T, env map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

// withService opens the data dir's service for a check, then closes it.
func withService(t *testing.T, dir string, fn func(svc *capability.Service)) {
	t.Helper()
	cfg := Config{DataDir: dir, Getenv: func(string) string { return "" }}
	var errb bytes.Buffer
	svc, closeFn, err := openService(context.Background(), &cfg, &errb)
	if err != nil {
		t.Fatalf("%v %s", err, errb.String())
	}
	defer closeFn()
	fn(svc)
}

// Issue 25: user create and set-password read the password from stdin
// (or EARSHOT_PASSWORD), so it is not in the process list; --password
// still works with a warning. Passwords are kept as typed (only the line
// end is taken off) and checked by the password rules, naming the field.
func TestPasswordsOffTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	code, out, errs := runCLIWithStdin(t, env, " correct-horse-42 \n", "user", "create", "--email", "sam@example.com")
	if code != 0 || len(strings.TrimSpace(out)) != 36 || errs != "" {
		t.Fatalf("user create from stdin: %d %q %q", code, out, errs)
	}
	withService(t, dir, func(svc *capability.Service) {
		u, err := svc.Store.UserByEmail(context.Background(), "sam@example.com")
		if err != nil || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(" correct-horse-42 ")) != nil {
			t.Fatalf("the stored password is not the line typed (spaces kept): %v", err)
		}
	})
	// --password: still accepted, with a warning.
	code, _, errs = runCLIWithStdin(t, env, "", "user", "create", "--email", "old@example.com", "--password", "an-old-script-pw")
	if code != 0 || !strings.Contains(errs, "--password is deprecated") || !strings.Contains(errs, "stdin") {
		t.Fatalf("--password: %d %q", code, errs)
	}
	// EARSHOT_PASSWORD: no warning.
	envPw := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error", "EARSHOT_PASSWORD": "river-lantern-93"}
	if code, _, errs := runCLIWithStdin(t, envPw, "", "user", "create", "--email", "env@example.com"); code != 0 || errs != "" {
		t.Fatalf("EARSHOT_PASSWORD: %d %q", code, errs)
	}
	// No password anywhere: a usage error saying where to put it.
	if code, _, errs := runCLIWithStdin(t, env, "", "user", "create", "--email", "none@example.com"); code != 2 || !strings.Contains(errs, "stdin or set EARSHOT_PASSWORD") {
		t.Fatalf("no password: %d %q", code, errs)
	}
	// Weak passwords are refused wherever they are set, naming the field.
	for _, c := range []struct{ args []string }{
		{[]string{"user", "create", "--email", "weak@example.com"}},
		{[]string{"user", "set-password", "--email", "sam@example.com"}},
	} {
		for _, pw := range []string{"password    ", "password1234", "sam@example.com!"} {
			code, _, errs := runCLIWithStdin(t, env, pw+"\n", c.args...)
			if code != 1 || !strings.Contains(errs, "password") || !strings.Contains(errs, "VALIDATION_ERROR") {
				t.Errorf("%s with %q: %d %q", c.args[1], pw, code, errs)
			}
		}
	}
	code, out, errs = runCLIWithStdin(t, env, "a-new-river-pw-7\n", "user", "set-password", "--email", "sam@example.com")
	if code != 0 || !strings.Contains(out, "password of sam@example.com changed") || errs != "" {
		t.Fatalf("set-password from stdin: %d %q %q", code, out, errs)
	}
}

// L2 through the CLI: the admin's reset revokes the keys the user's
// sessions minted and lists them; a key made with earshot key create stays.
func TestUserSetPasswordRevokesSessionKeys(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	if code, _, errs := runCLIWithStdin(t, env, "correct-horse-42\n", "user", "create", "--email", "sam@example.com"); code != 0 {
		t.Fatalf("user create: %s", errs)
	}
	code, out, errs := runCLI(t, env, "project", "create", "--owner", "sam@example.com", "--name", "Acme")
	if code != 0 {
		t.Fatalf("project create: %s", errs)
	}
	projectID := jsonField(t, out, "id")
	code, boxKey, errs := runCLI(t, env, "key", "create", "--project", projectID, "--name", "on the box")
	if code != 0 {
		t.Fatalf("key create: %s", errs)
	}
	boxKey = strings.TrimSpace(boxKey)
	var mintedID, mintedKey string
	withService(t, dir, func(svc *capability.Service) {
		ctx := context.Background()
		login, err := svc.Login(ctx, "sam@example.com", "correct-horse-42", "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := svc.Authenticate(ctx, login.Token, "", "")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := svc.Capability("create_api_key")
		o := svc.Execute(ctx, c, p, &capability.CreateKeyIn{Name: "minted by a session"}, "")
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		k := o.Data.(*capability.CreateKeyOut)
		mintedID, mintedKey = k.ID, *k.Key
	})
	code, out, errs = runCLIWithStdin(t, env, "reset-horse-77\n", "user", "set-password", "--email", "sam@example.com")
	if code != 0 || !strings.Contains(out, "1 session(s) logged out; 1 API key(s) made from their sessions revoked") ||
		!strings.Contains(out, "revoked key "+mintedID) || !strings.Contains(out, "minted by a session") {
		t.Fatalf("set-password: %d %q %q", code, out, errs)
	}
	withService(t, dir, func(svc *capability.Service) {
		ctx := context.Background()
		if _, err := svc.Authenticate(ctx, mintedKey, "", ""); err == nil {
			t.Error("the key a session minted survived the reset")
		}
		if _, err := svc.Authenticate(ctx, boxKey, "", ""); err != nil {
			t.Errorf("the key made on the box was revoked: %v", err)
		}
	})
}

func jsonField(t *testing.T, s, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %q", err, s)
	}
	v, _ := m[field].(string)
	return v
}

// EARSHOT_SESSION_IDLE: a duration of at least a minute, or off; unset is
// the 12-hour default (capability.DefaultSessionIdle); a bad value exits 2.
func TestSessionIdleSetting(t *testing.T) {
	for _, c := range []struct {
		v    string
		want time.Duration
		bad  bool
	}{{"", 0, false}, {"30m", 30 * time.Minute, false}, {"off", -1, false}, {"OFF", -1, false}, {"10s", 0, true}, {"soon", 0, true}} {
		var cfg Config
		err := readServeEnv(&cfg, func(k string) string { return map[string]string{"EARSHOT_SESSION_IDLE": c.v}[k] })
		if (err != nil) != c.bad || (!c.bad && cfg.SessionIdle != c.want) {
			t.Errorf("%q: %v %v", c.v, cfg.SessionIdle, err)
		}
		if c.bad && !strings.Contains(err.Error(), "EARSHOT_SESSION_IDLE") {
			t.Errorf("%q: the error does not name the variable: %v", c.v, err)
		}
	}
}
