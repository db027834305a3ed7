package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"earshot/store/storetest"
)

// Fault tests of issue 24, point 1: an idempotent create survives kill -9
// at the two points where a crash used to leave a change without its
// stored answer. The normal test run does one crash at each point; the
// slow campaign (24 crashes) runs with
//
//	EARSHOT_FAULT_TESTS=1 go test -count=1 -run TestIdempotentCreateSurvivesKill9 -v .
//
// (add EARSHOT_TEST_DATABASE_URL=postgres://… for PostgreSQL).

// crashPoints are capability.Config.CrashAt's points: after the create's
// writes but before their commit (with the answer), and after the commit
// but before the answer reaches the client.
var crashPoints = []string{"idempotent-write", "idempotent-commit"}

func TestIdempotentCreateSurvivesKill9(t *testing.T) {
	crashes := len(crashPoints)
	if os.Getenv("EARSHOT_FAULT_TESTS") == "1" {
		crashes = 24
	}
	cli := map[string]string{"EARSHOT_LOG_LEVEL": "error"}
	var env []string
	if storetest.Postgres() {
		u := storetest.URL(t)
		cli["EARSHOT_DATABASE_URL"] = u
		env = append(env, "EARSHOT_DATABASE_URL="+u)
	} else {
		dir := t.TempDir()
		cli["EARSHOT_DATA"] = dir
		env = append(env, "EARSHOT_DATA="+dir)
	}
	env = append(env, "EARSHOT_REPLAY=1", "EARSHOT_LOOPBACK_ONLY=1", "EARSHOT_SPIKE_INTERVAL=0")
	_, key := opsProject(t, cli, "Crashes", true)

	create := func(base, idemKey, name string) (int, map[string]any, error) {
		b, _ := json.Marshal(map[string]any{"name": name, "keywords": []string{"acme"}, "sources": []string{"news"}})
		req, _ := http.NewRequest("POST", base+"/api/v1/monitors", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idemKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return resp.StatusCode, nil, err
		}
		return resp.StatusCode, body, nil
	}
	replayed := func(body map[string]any) any { return body["meta"].(map[string]any)["idempotencyReplayed"] }

	for i := range crashes {
		point := crashPoints[i%len(crashPoints)]
		idemKey := fmt.Sprintf("crash-%s-%02d", point, i)
		name := fmt.Sprintf("Crash %02d", i)

		// A serve that kills itself with SIGKILL at the point.
		hooked, base := startServeProcess(t, fmt.Sprintf("hooked-%02d", i),
			append(env, "EARSHOT_TEST_HOOKS=1", "EARSHOT_TEST_CRASH_AFTER="+point))
		if st, body, err := create(base, idemKey, name); err == nil {
			t.Fatalf("crash %d (%s): the request was answered (%d %v); the hook did not kill serve", i, point, st, body)
		}
		err := hooked.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("crash %d (%s): serve ended with %v, want SIGKILL", i, point, err)
		}

		// The client retries against the restarted serve: one answer, at
		// once (no IDEMPOTENCY_KEY_IN_USE left behind), the same on the
		// next retry.
		clean, base := startServeProcess(t, fmt.Sprintf("clean-%02d", i), env)
		st1, b1, err1 := create(base, idemKey, name)
		st2, b2, err2 := create(base, idemKey, name)
		if err1 != nil || err2 != nil || st1 != 200 || st2 != 200 {
			t.Fatalf("crash %d (%s): retries answered %d %v %v / %d %v %v", i, point, st1, b1, err1, st2, b2, err2)
		}
		// Crashed before the commit: nothing was kept, the retry runs.
		// After it: the retry replays the committed answer.
		if want := point == "idempotent-commit"; replayed(b1) != want || replayed(b2) != true {
			t.Fatalf("crash %d (%s): replayed %v then %v, want %v then true", i, point, replayed(b1), replayed(b2), want)
		}
		if b1["data"].(map[string]any)["id"] != b2["data"].(map[string]any)["id"] {
			t.Fatalf("crash %d (%s): two answers name two monitors", i, point)
		}
		if n := countNamed(t, base, key, name); n != 1 {
			t.Fatalf("crash %d (%s): %d monitors named %q, want 1", i, point, n, name)
		}
		clean.Process.Signal(syscall.SIGKILL) // the next round restarts from a kill too
		clean.Wait()
	}

	_, base := startServeProcess(t, "final", env)
	total, dups := 0, 0
	for i := range crashes {
		n := countNamed(t, base, key, fmt.Sprintf("Crash %02d", i))
		if n != 1 {
			t.Errorf("Crash %02d: %d monitors, want 1", i, n)
		}
		total += n
		dups += max(n-1, 0)
	}
	t.Logf("%d kill -9 crashes (%v alternately): %d monitors, %d duplicates", crashes, crashPoints, total, dups)
}

// countNamed counts the project's monitors named name.
func countNamed(t *testing.T, base, key, name string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/monitors", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data struct {
			Monitors []struct{ Name string } `json:"monitors"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range list.Data.Monitors {
		if m.Name == name {
			n++
		}
	}
	return n
}
