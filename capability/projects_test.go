package capability_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestProjectWebsiteNullable: the spec types website as a nullable URI:
// null on create means no website, null on update clears it.
func TestProjectWebsiteNullable(t *testing.T) {
	e := newEnv(t)
	null := json.RawMessage(`null`)
	cases := []struct {
		name        string
		website     any // omitted when nil
		wantWebsite any
		wantParam   string // a 400 on this param
	}{
		{"null", null, nil, ""},
		{"omitted", nil, nil, ""},
		{"url", "https://acme.example", "https://acme.example", ""},
		{"not a url", "acme", nil, "website"},
		{"wrong type", 42, nil, "website"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"name": "Brand " + c.name}
			if c.website != nil {
				args["website"] = c.website
			}
			r := e.call(e.a, "create_project", "", args)
			if c.wantParam != "" {
				wantErr(t, c.name, r, http.StatusBadRequest, "VALIDATION_ERROR", c.wantParam)
				return
			}
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			pr, err := e.st.Project(t.Context(), r.data["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			var website any
			if pr.Website != nil {
				website = *pr.Website
			}
			if website != c.wantWebsite {
				t.Errorf("website %v, want %v", website, c.wantWebsite)
			}
		})
	}

	t.Run("update null clears", func(t *testing.T) {
		e.ok(e.a, "update_project", map[string]any{"id": e.projA.ID, "website": "https://acme.example"})
		p := e.ok(e.a, "update_project", map[string]any{"id": e.projA.ID, "website": null})
		if p["website"] != nil {
			t.Errorf("website %v after null, want null", p["website"])
		}
	})
}
