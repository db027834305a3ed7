package capability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"earshot/capability"
	"earshot/store/storetest"
)

// TestIdempotentReplayKeepsNoSecret: a response that shows a fresh secret
// once (API key, temporary password, signing secret) is kept for replay
// with the secret null, so neither the database nor a backup holds it, and
// a replay answers the same record with the secret null.
func TestIdempotentReplayKeepsNoSecret(t *testing.T) {
	e := newEnv(t)
	hook := e.ok(e.a, "create_webhook", map[string]any{"url": "https://hooks.example.com/rotate"})
	cases := []struct {
		capability, field, prefix string
		args                      map[string]any
		hashedAtRest              bool // the store keeps only a hash: the data dir must not hold it anywhere
	}{
		{"create_api_key", "key", "esk_", map[string]any{"name": "ci"}, true},
		{"invite_member", "invite_url", "http", map[string]any{"email": "new@example.com", "role": "viewer"}, true},
		{"create_webhook", "secret", "whsec_", map[string]any{"url": "https://hooks.example.com/a"}, false},
		{"rotate_webhook_secret", "secret", "whsec_", map[string]any{"id": hook["id"]}, false},
		{"create_alert", "secret", "whsec_", map[string]any{"name": "hot", "channel": "webhook", "target": "https://hooks.example.com/alert"}, false},
	}
	for _, c := range cases {
		t.Run(c.capability, func(t *testing.T) {
			key := "idem-" + c.capability
			first := e.call(e.a, c.capability, key, c.args)
			if first.Err != nil {
				t.Fatal(first.Err)
			}
			secret, _ := first.data[c.field].(string)
			if secret == "" || !strings.HasPrefix(secret, c.prefix) {
				t.Fatalf("first answer's %s = %v", c.field, first.data[c.field])
			}
			replay := e.call(e.a, c.capability, key, c.args)
			if replay.Err != nil || !replay.Replayed || replay.Status != first.Status {
				t.Fatalf("replay: status %d replayed %v err %v", replay.Status, replay.Replayed, replay.Err)
			}
			if v, present := replay.data[c.field]; !present || v != nil {
				t.Errorf("replayed %s = %v (present %v), want null", c.field, v, present)
			}
			want := map[string]any{}
			for k, v := range first.data {
				want[k] = v
			}
			want[c.field] = nil
			if a, b := mustJSON(t, want), mustJSON(t, replay.data); a != b {
				t.Errorf("replay is not the same record:\n got %s\nwant %s", b, a)
			}
			rec, err := e.st.IdemLookup(context.Background(), "project:"+e.projA.ID, c.capability, key)
			if err != nil || rec == nil {
				t.Fatalf("stored record: %v %v", rec, err)
			}
			if bytes.Contains(rec.Response, []byte(secret)) {
				t.Errorf("the idempotency record holds the secret: %s", rec.Response)
			}
			// The data dir holds the SQLite database (WAL included); on
			// PostgreSQL there is no file here to search, and the rows
			// written are the same on both backends.
			if c.hashedAtRest && !storetest.Postgres() {
				if f := grepDir(t, e.dataPath, secret); f != "" {
					t.Errorf("%s holds the plain %s", f, c.field)
				}
			}
		})
	}
}

// TestSecretFieldsAreDeclaredNullable: a capability may only declare as
// secret a field that its response schema lets be null and that says so.
func TestSecretFieldsAreDeclaredNullable(t *testing.T) {
	type plain struct {
		Key string `json:"key" doc:"null in an idempotent replay: the secret is shown once and not stored."`
	}
	type undocumented struct {
		Key *string `json:"key"`
	}
	type good struct {
		Key *string `json:"key" doc:"The key. null in an idempotent replay: the secret is shown once and not stored."`
	}
	run := func(ctx context.Context, p *capability.Principal, in *capability.Empty) (*plain, error) {
		return nil, nil
	}
	for name, define := range map[string]func(){
		"not a pointer": func() { capability.Define(capability.Capability{Name: "x", Secrets: []string{"key"}}, run) },
		"no such field": func() {
			capability.Define(capability.Capability{Name: "x", Secrets: []string{"nope"}},
				func(ctx context.Context, p *capability.Principal, in *capability.Empty) (*good, error) {
					return nil, nil
				})
		},
		"undocumented": func() {
			capability.Define(capability.Capability{Name: "x", Secrets: []string{"key"}},
				func(ctx context.Context, p *capability.Principal, in *capability.Empty) (*undocumented, error) {
					return nil, nil
				})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Define accepted it", name)
				}
			}()
			define()
		}()
	}
	capability.Define(capability.Capability{Name: "x", Secrets: []string{"key"}},
		func(ctx context.Context, p *capability.Principal, in *capability.Empty) (*good, error) {
			return nil, nil
		})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grepDir returns a file under dir whose bytes contain s, or "".
func grepDir(t *testing.T, dir, s string) string {
	t.Helper()
	found := ""
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(s)) {
			found = path
		}
		return nil
	})
	return found
}
