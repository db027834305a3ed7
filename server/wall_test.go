package server_test

import (
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestCuratedWall: the public page shows the brand's relevant mentions that
// are neither negative nor misinformation, testimonials first; featured
// ones come first of all (negative or old ones too), hidden ones never;
// public_visibility is set with update_mention_status, returned by
// get_mention and list_mentions and filterable, and only a status change
// fires mention.updated.
func TestCuratedWall(t *testing.T) {
	e := newEnv(t)
	own := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Acme", "keywords": []string{"acme"}, "group_name": "my_brand"}).ok().data()["id"].(string)
	comp := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Globex", "keywords": []string{"globex"}, "group_name": "competitors"}).ok().data()["id"].(string)
	now := time.Now().UTC()
	type seed struct {
		key, category, sentiment string
		monitor                  string
		age                      time.Duration
		relevant                 bool
	}
	seeds := []seed{
		{"love", "testimonial", "positive", own, 1 * time.Hour, true},
		{"love-old", "testimonial", "positive", own, 3 * time.Hour, true},
		{"idea", "product_idea", "neutral", own, 2 * time.Hour, true},
		{"outage", "complaint", "negative", own, 30 * time.Minute, true},
		{"fake", "misinformation", "neutral", own, 40 * time.Minute, true},
		{"answered", "complaint", "negative", own, 5 * time.Hour, true},
		{"hide-me", "testimonial", "positive", own, 10 * time.Minute, true},
		{"their-ad", "testimonial", "positive", comp, 20 * time.Minute, true},
		{"offtopic", "other", "neutral", own, 50 * time.Minute, false},
		{"ancient", "testimonial", "positive", own, 200 * 24 * time.Hour, true},
	}
	id := map[string]string{}
	for _, s := range seeds {
		m := e.seedMentions(e.projA, []string{s.monitor}, 1, now.Add(-s.age), func(_ int, m *store.NewMention) {
			m.ExternalID, m.Text, m.Category, m.Sentiment, m.IsRelevant = s.key, "post "+s.key+" about acme", s.category, s.sentiment, s.relevant
		})[0]
		id[s.key] = m.ID
	}
	name := map[string]string{}
	for k, v := range id {
		name[v] = k
	}
	wall := func() []string {
		t.Helper()
		d := e.do("GET", "/api/v1/public-page", e.keyA, nil).ok().data()
		var out []string
		for _, it := range d["items"].([]any) {
			out = append(out, name[it.(map[string]any)["id"].(string)])
		}
		return out
	}
	expect := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("wall %v, want %v", got, want)
		}
	}
	// Before curation: the rule alone, testimonials first, newest first.
	expect(wall(), "hide-me", "love", "love-old", "idea")

	// get_mention and list_mentions carry the field, default auto.
	if v := e.do("GET", "/api/v1/mentions/"+id["love"], e.keyA, nil).ok().data()["public_visibility"]; v != "auto" {
		t.Fatalf("get_mention public_visibility %v", v)
	}
	for _, it := range e.do("GET", "/api/v1/mentions", e.keyA, nil).ok().data()["items"].([]any) {
		if it.(map[string]any)["public_visibility"] != "auto" {
			t.Fatalf("list item %v", it)
		}
	}

	drainEvents(t, e)
	// Curate: feature a negative complaint the brand answered well and a
	// 200-day-old testimonial; hide one post.
	for key, vis := range map[string]string{"answered": "featured", "ancient": "featured", "hide-me": "hidden"} {
		d := e.do("PATCH", "/api/v1/mentions/"+id[key], e.keyA, map[string]any{"public_visibility": vis}).ok().data()
		if d["public_visibility"] != vis || d["status"] != "new" {
			t.Fatalf("%s: %v", key, d)
		}
	}
	if evs := drainEvents(t, e); len(evs) != 0 {
		t.Fatalf("visibility alone fired %d events (%s)", len(evs), evs[0].Type)
	}
	expect(wall(), "answered", "ancient", "love", "love-old", "idea")
	if v := e.do("GET", "/api/v1/mentions/"+id["hide-me"], e.keyA, nil).ok().data()["public_visibility"]; v != "hidden" {
		t.Fatalf("get_mention after hide: %v", v)
	}

	// Status and visibility together: one mention.updated carrying both.
	d := e.do("PATCH", "/api/v1/mentions/"+id["idea"], e.keyA, map[string]any{"status": "reviewed", "public_visibility": "featured"}).ok().data()
	if d["status"] != "reviewed" || d["public_visibility"] != "featured" {
		t.Fatalf("both: %v", d)
	}
	evs := drainEvents(t, e)
	if len(evs) != 1 || evs[0].Type != "mention.updated" || !strings.Contains(evs[0].Payload, `"public_visibility":"featured"`) {
		t.Fatalf("status+visibility events %v", evs)
	}
	expect(wall(), "idea", "answered", "ancient", "love", "love-old")
	// Ignoring takes an auto mention off the wall; a featured one stays.
	e.do("PATCH", "/api/v1/mentions/"+id["love-old"], e.keyA, map[string]any{"status": "ignored"}).ok()
	e.do("PATCH", "/api/v1/mentions/"+id["idea"], e.keyA, map[string]any{"status": "ignored"}).ok()
	expect(wall(), "idea", "answered", "ancient", "love")

	// The filter.
	for vis, want := range map[string]string{"featured": "idea,answered,ancient", "hidden": "hide-me"} {
		var got []string
		for _, it := range listAll(t, e, e.keyA, "public_visibility="+vis, 2, nil) {
			got = append(got, name[it["id"].(string)])
		}
		if strings.Join(got, ",") != want {
			t.Errorf("public_visibility=%s: %v, want %s", vis, got, want)
		}
	}
	if n := len(listAll(t, e, e.keyA, "public_visibility=auto", 100, nil)); n != len(seeds)-4 {
		t.Errorf("public_visibility=auto: %d mentions, want %d", n, len(seeds)-4)
	}

	// Nothing to change (issue 25: a 400 naming status, the spec's required
	// field), a bad value, and the list filter.
	if p := e.do("PATCH", "/api/v1/mentions/"+id["love"], e.keyA, map[string]any{}).expect(400, "VALIDATION_ERROR").errParam(); p != "status" {
		t.Fatalf("empty change: param %q", p)
	}
	if p := e.do("PATCH", "/api/v1/mentions/"+id["love"], e.keyA, map[string]any{"public_visibility": "pinned"}).expect(400, "VALIDATION_ERROR").errParam(); p != "public_visibility" {
		t.Errorf("param %q", p)
	}
	e.do("GET", "/api/v1/mentions?public_visibility=pinned", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	// Another tenant can neither curate nor see it.
	e.do("PATCH", "/api/v1/mentions/"+id["love"], e.keyB, map[string]any{"public_visibility": "hidden"}).expect(404, "NOT_FOUND")
	if items := e.do("GET", "/api/v1/public-page", e.keyB, nil).ok().data()["items"].([]any); len(items) != 0 {
		t.Fatalf("tenant B previews A's wall: %v", items)
	}
	// A viewer key (mentions:read) previews but cannot curate.
	viewer := e.mustKey(e.projA, []string{"mentions:read"})
	e.do("GET", "/api/v1/public-page", viewer, nil).ok()
	e.do("PATCH", "/api/v1/mentions/"+id["love"], viewer, map[string]any{"public_visibility": "hidden"}).expect(403, "FORBIDDEN")

	// The page itself shows the same mentions, and is off until published.
	pv := e.do("GET", "/api/v1/public-page", e.keyA, nil).ok().data()
	if pv["enabled"] != false || pv["url"] != nil {
		t.Fatalf("preview of an unpublished page: %v %v", pv["enabled"], pv["url"])
	}
	e.do("PATCH", "/api/v1/projects/"+e.projA.ID+"/public", e.keyA, map[string]any{"enabled": true}).ok()
	pv = e.do("GET", "/api/v1/public-page", e.keyA, nil).ok().data()
	if pv["enabled"] != true || !strings.HasSuffix(pv["url"].(string), "/p/"+e.projA.Slug) {
		t.Fatalf("preview of the published page: %v %v", pv["enabled"], pv["url"])
	}
	page := string(e.do("GET", "/p/"+e.projA.Slug, "", nil).raw)
	for _, key := range []string{"idea", "answered", "ancient", "love"} {
		if !strings.Contains(page, "post "+key+" about acme") {
			t.Errorf("public page lacks %s", key)
		}
	}
	// in the wall's order: featured ones (a complaint too) before the testimonials
	last := -1
	for _, key := range []string{"idea", "answered", "ancient", "love"} {
		at := strings.Index(page, "post "+key+" about acme")
		if at < last {
			t.Errorf("public page shows %s out of order", key)
		}
		last = at
	}
	for _, key := range []string{"outage", "fake", "hide-me", "their-ad", "offtopic", "love-old"} {
		if strings.Contains(page, "post "+key+" about acme") {
			t.Errorf("public page shows %s", key)
		}
	}
	// Back to auto: the rule decides again (a negative one leaves).
	e.do("PATCH", "/api/v1/mentions/"+id["answered"], e.keyA, map[string]any{"public_visibility": "auto"}).ok()
	expect(wall(), "idea", "ancient", "love")
}

// drainEvents returns the outbox's undispatched events and marks them
// dispatched.
func drainEvents(t *testing.T, e *env) []*store.OutboxEvent {
	t.Helper()
	evs, err := e.st.UndispatchedEvents(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var fs []store.Fanout
	for _, ev := range evs {
		fs = append(fs, store.Fanout{Event: ev})
	}
	if _, err := e.st.Dispatch(t.Context(), fs, time.Now()); err != nil {
		t.Fatal(err)
	}
	return evs
}
