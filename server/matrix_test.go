package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"earshot/capability"
	"earshot/store"
)

// fixture is one of every resource in a project, so a request can be built
// for any capability from the catalogue alone.
type fixture struct {
	project *store.Project
	user    *store.User
	ids     map[string]string // capability Group → a resource id of that kind
	keyword string
	monitor string
	group   string
}

func (e *env) fixture(p *store.Project, u *store.User, token, keyword string) *fixture {
	e.t.Helper()
	f := &fixture{project: p, user: u, ids: map[string]string{"project": p.ID, "member": u.ID}, keyword: keyword}
	g := e.do("POST", "/api/v1/keyword-groups", token, map[string]any{"name": "G " + keyword, "is_own": true}).ok().data()
	f.group = g["id"].(string)
	f.ids["keyword group"] = f.group
	m := e.do("POST", "/api/v1/monitors", token, map[string]any{"name": "M " + keyword, "keywords": []string{keyword}, "group_id": f.group}).ok().data()
	f.monitor = m["id"].(string)
	f.ids["monitor"] = f.monitor
	f.ids["view"] = e.do("POST", "/api/v1/views", token, map[string]any{"name": "V", "filters": map[string]any{"status": "new"}}).ok().data()["id"].(string)
	f.ids["alert"] = e.do("POST", "/api/v1/alerts", token, map[string]any{"name": "A", "channel": "email", "target": "ops@example.com"}).ok().data()["id"].(string)
	f.ids["webhook"] = e.do("POST", "/api/v1/webhooks", token, map[string]any{"url": "https://hooks.example.com/x"}).ok().data()["id"].(string)
	ms := e.seedMentions(p, []string{f.monitor}, 3, time.Now().Add(-time.Hour), nil)
	f.ids["mention"] = ms[0].ID
	keys, err := e.st.ListAPIKeys(context.Background(), p.ID)
	if err != nil || len(keys) == 0 {
		e.t.Fatal("no keys", err)
	}
	f.ids["api key"] = keys[0].ID
	f.ids["delivery"] = uuid.NewString() // no delivery exists yet: any id is unknown
	f.ids["spike"] = uuid.NewString()    // spikes are found in the background: none yet
	f.ids["story"] = uuid.NewString()    // no story exists: any id is unknown
	return f
}

// pathFor fills a capability's path parameters from the fixture.
func (f *fixture) pathFor(c *capability.Capability) string {
	path := c.Path
	if !strings.Contains(path, ":id") {
		return path
	}
	id := f.ids[c.Group]
	switch {
	case c.Group == "category":
		id = "bug_report"
	case c.Group == "keyword":
		id = url.PathEscape(f.keyword)
	case c.Name == "update_keyword":
		id = f.monitor
	case c.Name == "list_webhook_deliveries" || c.Name == "rotate_webhook_secret":
		id = f.ids["webhook"]
	}
	return strings.Replace(path, ":id", id, 1)
}

// validValue returns a value that passes a field's rules.
func (f *fixture) validValue(fl capability.Field) any {
	t := fl.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	str := func() string {
		switch {
		case len(fl.Enum) > 0:
			return fl.Enum[0]
		case fl.Format == "uuid" && fl.Name == "group_id":
			return f.group
		case fl.Format == "uuid":
			return f.monitor
		case fl.Format == "email":
			return "someone@example.com"
		case fl.Format == "uri":
			return "https://example.com/feed"
		case fl.Format == "date-time":
			return "2026-01-01T00:00:00Z"
		case fl.Name == "url" || fl.Name == "target":
			return "https://hooks.example.com/y"
		}
		return "x"
	}
	switch {
	case t == reflect.TypeFor[capability.NullString]():
		return str()
	case t.Kind() == reflect.String:
		return str()
	case t.Kind() == reflect.Int:
		if len(fl.Enum) > 0 {
			n, _ := strconv.Atoi(fl.Enum[0])
			return n
		}
		if fl.Min != nil {
			return *fl.Min
		}
		return 1
	case t.Kind() == reflect.Bool:
		return true
	case t.Kind() == reflect.Slice:
		return []any{str()}
	case t.Kind() == reflect.Struct:
		return map[string]any{}
	}
	return nil
}

// request builds a valid request for c, then applies mutate to the fields.
func (f *fixture) request(c *capability.Capability, mutate func(values map[string]any)) (path string, body map[string]any) {
	values := map[string]any{}
	for _, fl := range c.Fields {
		if fl.Required && fl.In != "path" {
			values[fl.Name] = f.validValue(fl)
		}
	}
	if mutate != nil {
		mutate(values)
	}
	path = f.pathFor(c)
	q := url.Values{}
	body = map[string]any{}
	for _, fl := range c.Fields {
		v, ok := values[fl.Name]
		if !ok {
			continue
		}
		switch fl.In {
		case "path":
			path = strings.Replace(c.Path, ":id", url.PathEscape(v.(string)), 1)
		case "query":
			switch x := v.(type) {
			case []any:
				for _, it := range x {
					q.Add(fl.Name, it.(string))
				}
			default:
				q.Set(fl.Name, toString(v))
			}
		default:
			body[fl.Name] = v
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path, body
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func bodyOrNil(c *capability.Capability, b map[string]any) any {
	if len(b) == 0 && (c.Method == "GET" || c.Method == "DELETE") {
		return nil
	}
	return b
}

// TestScopeMatrix: for every capability of the catalogue, a key holding every
// scope except the required one gets 403 FORBIDDEN; session-only operations
// refuse even an all-scopes key.
func TestScopeMatrix(t *testing.T) {
	e := newEnv(t)
	fa := e.fixture(e.projA, e.userA, e.keyA, "acme")
	for _, c := range e.svc.Capabilities() {
		t.Run(c.Name, func(t *testing.T) {
			var scopes []string
			for _, s := range capability.AllScopes {
				if s != c.Scope {
					scopes = append(scopes, s)
				}
			}
			key := e.mustKey(e.projA, scopes)
			path, body := fa.request(c, nil)
			e.do(c.Method, path, key, bodyOrNil(c, body)).expect(403, "FORBIDDEN")
			if c.SessionOnly {
				e.do(c.Method, path, e.keyA, bodyOrNil(c, body)).expect(403, "FORBIDDEN")
			}
		})
	}
}

// TestTenancyMatrix: every capability that takes an id answers 404 for
// another tenant's id, exactly as for an id that does not exist.
func TestTenancyMatrix(t *testing.T) {
	e := newEnv(t)
	e.fixture(e.projA, e.userA, e.keyA, "acme")
	fb := e.fixture(e.projB, e.userB, e.keyB, "globexonly")
	checked := 0
	for _, c := range e.svc.Capabilities() {
		if !strings.Contains(c.Path, ":id") || c.Group == "category" || c.SessionOnly && c.Group != "api key" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			path, body := fb.request(c, needsOneOf(c)) // B's ids …
			token := e.keyA                            // … with A's credential
			if c.SessionOnly {
				token = e.sessionA
			}
			r := e.do(c.Method, path, token, bodyOrNil(c, body))
			r.expect(404, "NOT_FOUND")
			// and B's own resource is untouched and still reachable by B
			if c.Method == "DELETE" {
				btoken := e.keyB
				if c.SessionOnly {
					btoken = e.sessionB
				}
				if c.Group == "monitor" && c.Name == "delete_monitor" {
					e.do("GET", "/api/v1/monitors/"+fb.monitor, btoken, nil).ok()
				}
			}
		})
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d id-taking capabilities checked", checked)
	}
}

// TestValidationMatrix: each declared rule of each capability, violated
// alone, answers 400 VALIDATION_ERROR naming the field.
func TestValidationMatrix(t *testing.T) {
	e := newEnv(t)
	fa := e.fixture(e.projA, e.userA, e.keyA, "acme")
	cases := 0
	for _, c := range e.svc.Capabilities() {
		token := e.keyA
		if c.SessionOnly || c.NoProject {
			token = e.sessionA
		}
		for _, fl := range c.Fields {
			fl := fl
			type violation struct {
				name  string
				value any
				omit  bool
			}
			var vs []violation
			kind := fl.Type
			for kind.Kind() == reflect.Pointer {
				kind = kind.Elem()
			}
			isSlice := kind.Kind() == reflect.Slice
			if fl.Required && fl.In != "path" {
				vs = append(vs, violation{name: "required", omit: true})
			}
			if fl.MaxLen > 0 {
				long := strings.Repeat("é", fl.MaxLen+1) // counts characters, not bytes
				if isSlice {
					vs = append(vs, violation{"maxlen", []any{long}, false})
				} else {
					vs = append(vs, violation{"maxlen", long, false})
				}
			}
			if fl.NotBlank {
				if isSlice {
					vs = append(vs, violation{"blank", []any{" \t "}, false})
				} else {
					vs = append(vs, violation{"blank", " \t ", false})
				}
			}
			if len(fl.Enum) > 0 {
				bad := any("bogus_value")
				if kind.Kind() == reflect.Int {
					bad = 7
				}
				if isSlice {
					bad = []any{"bogus_value"}
				}
				vs = append(vs, violation{"enum", bad, false})
			}
			if fl.Format != "" && fl.In != "path" {
				if isSlice {
					vs = append(vs, violation{"format", []any{"not a valid value"}, false})
				} else {
					vs = append(vs, violation{"format", "not a valid value", false})
				}
			}
			if fl.Min != nil {
				vs = append(vs, violation{"min", *fl.Min - 1, false})
			}
			if fl.Max != nil {
				vs = append(vs, violation{"max", *fl.Max + 1, false})
			}
			if fl.MaxItems > 0 {
				items := make([]any, fl.MaxItems+1)
				for i := range items {
					items[i] = fa.validValue(fl).([]any)[0]
				}
				vs = append(vs, violation{"maxitems", items, false})
			}
			if fl.In == "body" && kind.Kind() == reflect.String {
				vs = append(vs, violation{"type", 12345, false})
			}
			for _, v := range vs {
				cases++
				t.Run(c.Name+"/"+fl.Name+"/"+v.name, func(t *testing.T) {
					path, body := fa.request(c, func(values map[string]any) {
						if v.omit {
							delete(values, fl.Name)
						} else {
							values[fl.Name] = v.value
						}
					})
					if fl.In == "path" {
						path = strings.Replace(c.Path, ":id", url.PathEscape(toString(v.value)), 1)
					}
					r := e.do(c.Method, path, token, bodyOrNil(c, body))
					r.expect(400, "VALIDATION_ERROR")
					if p := r.errParam(); p != fl.Name && !strings.HasPrefix(p, fl.Name+"[") {
						t.Fatalf("param %q, want %q: %s", p, fl.Name, r.raw)
					}
				})
			}
		}
	}
	if cases < 100 {
		t.Fatalf("only %d validation cases generated", cases)
	}
}

// TestUnknownFieldsRejected: every capability with a body refuses an unknown field.
func TestUnknownFieldsRejected(t *testing.T) {
	e := newEnv(t)
	fa := e.fixture(e.projA, e.userA, e.keyA, "acme")
	for _, c := range e.svc.Capabilities() {
		if c.Method == "GET" {
			continue
		}
		token := e.keyA
		if c.SessionOnly || c.NoProject {
			token = e.sessionA
		}
		path, body := fa.request(c, nil)
		body["no_such_field"] = true
		r := e.do(c.Method, path, token, body)
		r.expect(400, "VALIDATION_ERROR")
		if r.errParam() != "no_such_field" {
			t.Errorf("%s: param %q", c.Name, r.errParam())
		}
	}
}

// needsOneOf gives the field an operation requires one of several of,
// which the catalogue cannot mark required (update_mention_status: status
// or public_visibility), so a valid request reaches the resource's check.
func needsOneOf(c *capability.Capability) func(map[string]any) {
	return func(values map[string]any) {
		if c.Name == "update_mention_status" {
			values["status"] = "reviewed"
		}
	}
}
