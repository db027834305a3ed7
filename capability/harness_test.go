package capability_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"earshot/capability"
	"earshot/store"
	"earshot/store/storetest"
)

// env is a service on a temp data dir with two tenants, each an owner's
// session in its own project.
type env struct {
	t        *testing.T
	st       *store.Store
	svc      *capability.Service
	a, b     *capability.Principal
	projA    *store.Project
	projB    *store.Project
	dataPath string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir() // the SQLite database's dir (unused on PostgreSQL)
	st, err := storetest.OpenAt(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := capability.New(st, capability.Config{BaseURL: "http://earshot.test", AllowPrivateWebhooks: true,
		PlanQuotas: map[string]int{"trial": 1000, "unlimited": 0}}, slog.New(slog.DiscardHandler))
	e := &env{t: t, st: st, svc: svc, dataPath: dir}
	e.projA, e.a = e.owner("a@example.com", "Acme")
	e.projB, e.b = e.owner("b@example.com", "Globex")
	return e
}

func (e *env) owner(email, project string) (*store.Project, *capability.Principal) {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.svc.CreateUser(ctx, email, "correct-horse-42", "")
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.st.CreateProject(ctx, u.ID, project, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return p, &capability.Principal{Kind: capability.KindSession, UserID: u.ID, SessionID: "s-" + email, ProjectID: p.ID,
		Role: "owner", Scopes: capability.AllScopes}
}

// result is an outcome as a binding would write it: the data or the error.
type result struct {
	capability.Outcome
	data map[string]any
}

// call decodes args as a binding does (every field accepted wherever it is
// declared) and executes the capability.
func (e *env) call(p *capability.Principal, name, idemKey string, args map[string]any) result {
	e.t.Helper()
	c, ok := e.svc.Capability(name)
	if !ok {
		e.t.Fatalf("no capability %s", name)
	}
	values := map[string]json.RawMessage{}
	for k, v := range args {
		if raw, ok := v.(json.RawMessage); ok {
			values[k] = raw
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			e.t.Fatal(err)
		}
		values[k] = b
	}
	in, err := c.Decode(values, nil)
	if err != nil {
		ae, _ := capability.AsError(err, "")
		return result{Outcome: capability.Outcome{Status: ae.Status, Err: ae}}
	}
	out := e.svc.Execute(context.Background(), c, p, in, idemKey)
	r := result{Outcome: out}
	if out.Err == nil {
		b, err := json.Marshal(out.Data)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.data); err != nil {
			e.t.Fatalf("%s: data is not an object: %s", name, b)
		}
	}
	return r
}

// ok calls and fails the test unless the call succeeded.
func (e *env) ok(p *capability.Principal, name string, args map[string]any) map[string]any {
	e.t.Helper()
	r := e.call(p, name, "", args)
	if r.Err != nil {
		e.t.Fatalf("%s %v: %v", name, args, r.Err)
	}
	return r.data
}

// wantErr checks an outcome's status, code and param.
func wantErr(t *testing.T, what string, r result, status int, code, param string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("%s: succeeded with %v, want %d %s", what, r.data, status, code)
	}
	if r.Status != status || r.Err.Code != code || r.Err.Param != param {
		t.Fatalf("%s: %d %s param %q (%s), want %d %s param %q", what, r.Status, r.Err.Code, r.Err.Param, r.Err.Message, status, code, param)
	}
}
