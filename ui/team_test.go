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

// TestMentionPageTeamwork: the mention page assigns (to me, by its form),
// tags and notes through its forms, shows them, and the inbox's "Assigned
// to me" view and tag filter list the mention with its badges.
func TestMentionPageTeamwork(t *testing.T) {
	e, c := ownerClient(t, 3)
	ms, err := e.st.ListMentions(context.Background(), storeFilter(e), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	id := ms[1].ID
	page := "/mentions/" + id
	_, body, _ := c.get(page)
	must(t, body, "Nobody is assigned.", `id="assign-me"`, "No tags.", "No notes yet.", `action="/a/add_mention_note"`)
	for _, f := range []url.Values{
		{"id": {id}, "assignee_id": {"me"}, "_back": {page}},
	} {
		if st, b, _ := c.post("/a/assign_mention", f, true); st != http.StatusSeeOther {
			t.Fatalf("assign: %d %s", st, b)
		}
	}
	if st, b, _ := c.post("/a/tag_mention", url.Values{"id": {id}, "tag": {"VIP"}, "_back": {page}}, true); st != http.StatusSeeOther {
		t.Fatalf("tag: %d %s", st, b)
	}
	if st, b, _ := c.post("/a/add_mention_note", url.Values{"id": {id}, "text": {"Called <them> back"}, "_back": {page}}, true); st != http.StatusSeeOther {
		t.Fatalf("note: %d %s", st, b)
	}
	_, body, _ = c.get(page)
	must(t, body, "Assigned to you.", `href="/?tag=vip"`, "#vip", "Called &lt;them&gt; back", "Olive Owner", `action="/a/unassign_mention"`, `action="/a/delete_mention_note"`)
	if strings.Contains(body, `id="assign-me"`) {
		t.Error("the Assign to me button is shown on a mention already mine")
	}
	// A bad tag comes back as the form's error.
	if st, b, _ := c.post("/a/tag_mention", url.Values{"id": {id}, "tag": {"two words"}, "_back": {page}}, true); st != formFailed || !strings.Contains(b, "A tag is 1-40 letters") {
		t.Fatalf("bad tag: %d %s", st, b)
	}

	_, body, _ = c.get("/?assignee=me")
	must(t, body, `href="/?assignee=me" aria-current="page"`, "Assigned to you", "m-"+id)
	if strings.Contains(body, "m-"+ms[0].ID) {
		t.Error("Assigned to me lists an unassigned mention")
	}
	_, body, _ = c.get("/?tag=vip")
	must(t, body, "m-"+id, "#vip")
	if strings.Contains(body, "m-"+ms[2].ID) {
		t.Error("tag=vip lists an untagged mention")
	}
}

// TestInboxAssignKey: /ui/assign (the inbox's "a" key) assigns the mention
// to me and, asked with no assignee, unassigns it, answering its row.
func TestInboxAssignKey(t *testing.T) {
	e, c := ownerClient(t, 2)
	ms, _ := e.st.ListMentions(context.Background(), storeFilter(e), nil, 2)
	id := ms[0].ID
	post := func(who string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", e.http.URL+"/ui/assign", strings.NewReader(url.Values{"id": {id}, "assignee_id": {who}, "_csrf": {c.csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-CSRF-Token", c.csrf)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := c.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %v", resp.StatusCode, out)
		}
		return out
	}
	if out := post("me"); out["assigned"] != true || !strings.Contains(out["html"].(string), "Assigned to you") {
		t.Fatalf("assign: %v", out)
	}
	if m, _ := e.st.Mention(context.Background(), e.proj.ID, id); m.AssigneeID() != e.owner.ID {
		t.Fatal("not stored")
	}
	if out := post(""); out["assigned"] != false || strings.Contains(out["html"].(string), "Assigned to") {
		t.Fatalf("unassign: %v", out)
	}
}

// TestTimeZoneSetting: the account form stores an IANA zone (refusing an
// unknown name), and absolute times on the mention page follow it.
func TestTimeZoneSetting(t *testing.T) {
	e, c := ownerClient(t, 0)
	ms := e.ingestAt(time.Date(2026, 1, 15, 12, 30, 0, 0, time.UTC))
	page := "/mentions/" + ms[0].ID
	_, body, _ := c.get(page)
	must(t, body, "15 Jan 2026 12:30 UTC")
	if st, b, _ := c.post("/a/update_account", url.Values{"time_zone": {"Mars/Olympus"}, "_back": {"/account"}}, true); st != formFailed || !strings.Contains(b, "not an IANA time zone") {
		t.Fatalf("bad zone: %d %s", st, b)
	}
	if st, b, _ := c.post("/a/update_account", url.Values{"time_zone": {"Asia/Tokyo"}, "_back": {"/account"}}, true); st != http.StatusSeeOther {
		t.Fatalf("zone: %d %s", st, b)
	}
	_, body, _ = c.get("/account")
	must(t, body, `value="Asia/Tokyo"`)
	_, body, _ = c.get(page)
	must(t, body, "15 Jan 2026 21:30 JST")
}

func storeFilter(e *env) store.MentionFilter { return store.MentionFilter{ProjectID: e.proj.ID} }

// ingestAt stores one mention published at t.
func (e *env) ingestAt(t time.Time) []*store.Mention {
	res, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, []store.NewMention{{Source: "reddit", ExternalID: "tz", URL: "https://reddit.example/tz",
		AuthorHandle: "tz", Text: "Acme at noon", PublishedAt: t, IsRelevant: true, Category: "other", Sentiment: "neutral", Classifier: "builtin"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Created
}

// TestSpikeHourInUserZone: the inbox's spike line names the hour in the
// user's time zone.
func TestSpikeHourInUserZone(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	c.get("/monitors/new")
	c.post("/a/create_monitor", url.Values{"name": {"Acme brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	hour := time.Now().UTC().Truncate(time.Hour)
	if _, err := e.st.RecordSpikes(ctx, e.proj.ID, []store.SpikeFinding{{SpikeScope: store.SpikeScope{Scope: "monitor", ID: ms[0].ID},
		Kind: "negative", BucketStart: hour, Count: 15, Baseline: 1, Score: 9, Threshold: 6}}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetUserTimeZone(ctx, e.owner.ID, "America/New_York"); err != nil {
		t.Fatal(err)
	}
	ny, _ := time.LoadLocation("America/New_York")
	_, body, _ := c.get("/")
	must(t, body, "in the hour from "+hour.In(ny).Format("15:04 MST")+" (usually about 1)")
}
