package ui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestWallCuration: an editor hides a testimonial and features a negative
// post from the dashboard; the preview and the public page follow, in
// order (featured first), and a viewer gets no curation controls.
func TestWallCuration(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	now := time.Now()
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "w1", URL: "https://x.example/1", AuthorHandle: "fan", Text: "Love it, best tool ever", PublishedAt: now.Add(-time.Hour),
			IsRelevant: true, Category: "testimonial", Sentiment: "positive"},
		{Source: "x", ExternalID: "w2", URL: "https://x.example/2", AuthorHandle: "angry", Text: "It was down but support fixed it fast", PublishedAt: now.Add(-2 * time.Hour),
			IsRelevant: true, Category: "complaint", Sentiment: "negative"},
		{Source: "x", ExternalID: "w3", URL: "https://x.example/3", AuthorHandle: "fan2", Text: "Great onboarding, thank you", PublishedAt: now.Add(-3 * time.Hour),
			IsRelevant: true, Category: "testimonial", Sentiment: "positive"},
	})
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]string{}
	for _, m := range res.Created {
		byText[m.AuthorHandle] = m.ID
	}
	_, body, _ := c.get("/wall")
	must(t, body, "Public page preview", "is not published", "Love it, best tool ever", "Great onboarding")
	if strings.Contains(body, "support fixed it fast") {
		t.Error("a negative post on the wall by default")
	}
	for id, vis := range map[string]string{byText["fan"]: "hidden", byText["angry"]: "featured"} {
		st, b, _ := c.post("/ui/status?back=/wall", url.Values{"id": {id}, "public_visibility": {vis}}, true)
		var out struct {
			Rows map[string]string `json:"rows"`
		}
		json.Unmarshal([]byte(b), &out)
		if st != 200 || !strings.Contains(out.Rows[id], `data-public_visibility="`+vis+`"`) {
			t.Fatalf("set %s: %d %s", vis, st, b)
		}
	}
	if m, _ := e.st.Mention(ctx, e.proj.ID, byText["fan"]); m.Status != "new" || m.PublicVisibility != "hidden" {
		t.Errorf("hiding changed the status or did not hide: %s %s", m.Status, m.PublicVisibility)
	}
	_, body, _ = c.get("/wall")
	must(t, body, "Featured on the wall", "support fixed it fast", "Great onboarding")
	if strings.Contains(body, "Love it, best tool ever") {
		t.Error("a hidden post in the preview")
	}
	if strings.Index(body, "support fixed it fast") > strings.Index(body, "Great onboarding") {
		t.Error("the featured post is not first")
	}
	// The public page shows the same.
	c.get("/settings")
	if st, _, _ := c.post("/a/set_public_dashboard", url.Values{"id": {e.proj.ID}, "enabled": {"true"}, "_back": {"/settings"}}, true); st != http.StatusSeeOther {
		t.Fatalf("publish: %d", st)
	}
	p, _ := e.st.Project(ctx, e.proj.ID)
	anon := e.client()
	st, pub, _ := anon.get("/p/" + p.Slug)
	if st != 200 {
		t.Fatalf("public page %d", st)
	}
	must(t, pub, "Featured", "support fixed it fast", "Great onboarding")
	if strings.Contains(pub, "Love it, best tool ever") {
		t.Error("a hidden post on the public page")
	}
	// The inbox row has the controls, and the no-JS form works too.
	_, body, _ = c.get("/")
	must(t, body, `name="public_visibility" value="featured"`, "Hidden from the wall")
	if st, _, _ := c.post("/a/update_mention_status", url.Values{"id": {byText["fan"]}, "public_visibility": {"auto"}, "_back": {"/"}}, true); st != http.StatusSeeOther {
		t.Fatalf("no-JS auto: %d", st)
	}
	if m, _ := e.st.Mention(ctx, e.proj.ID, byText["fan"]); m.PublicVisibility != "auto" {
		t.Errorf("visibility %s after Auto", m.PublicVisibility)
	}
}
