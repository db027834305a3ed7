package server_test

import (
	"context"
	"encoding/csv"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/store"
)

// TestTeamworkAPI drives assignment, tags and notes through REST as a
// client would: assign to me (a session) and to another member, the
// assignee=me and tag= filters of list_mentions and export_mentions, the
// CSV columns, refusals (a non-member, a bad tag, the wrong scope, another
// project's mention) and notes with their author and delete rights.
func TestTeamworkAPI(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ms := e.seedMentions(e.projA, nil, 3, time.Now(), nil)
	bms := e.seedMentions(e.projB, nil, 1, time.Now(), nil)
	editor := e.mustUser("editor@example.com")
	if _, err := e.st.AddMember(ctx, e.projA.ID, editor.ID, "editor"); err != nil {
		t.Fatal(err)
	}
	editorSession := e.login("editor@example.com")
	mails := make(chan [2]string, 4)
	e.svc.SendEmail = func(_ context.Context, to, subject, body string) error {
		mails <- [2]string{to, subject + "\n" + body}
		return nil
	}

	// Assign to me with the editor's session, and another to A's owner by id.
	r := e.do("PUT", "/api/v1/mentions/"+ms[0].ID+"/assignee", editorSession, map[string]any{"assignee_id": "me"}).ok()
	a, _ := r.data()["assignee"].(map[string]any)
	if a["id"] != editor.ID || a["name"] != "User editor@example.com" {
		t.Fatalf("assignee %v", r.data()["assignee"])
	}
	e.do("PUT", "/api/v1/mentions/"+ms[1].ID+"/assignee", e.keyA, map[string]any{"assignee_id": e.userA.ID}).ok()
	// Assigning someone else emails them (SMTP set); assigning yourself does not.
	e.do("PUT", "/api/v1/mentions/"+ms[2].ID+"/assignee", editorSession, map[string]any{"assignee_id": e.userA.ID}).ok()
	select {
	case m := <-mails:
		if m[0] != "a@example.com" || !strings.Contains(m[1], "User editor@example.com assigned you a mention") || !strings.Contains(m[1], "/mentions/"+ms[2].ID) {
			t.Fatalf("assignment email %q", m)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("no assignment email")
	}
	if len(mails) != 0 {
		t.Fatalf("more emails than the one assignment to someone else: %q", <-mails)
	}
	e.do("DELETE", "/api/v1/mentions/"+ms[2].ID+"/assignee", e.keyA, nil).ok()
	e.do("PUT", "/api/v1/mentions/"+ms[2].ID+"/assignee", e.keyA, map[string]any{"assignee_id": e.userB.ID}).expect(400, "VALIDATION_ERROR")
	e.do("PUT", "/api/v1/mentions/"+bms[0].ID+"/assignee", e.keyA, map[string]any{"assignee_id": "me"}).expect(404, "NOT_FOUND")
	readOnly := e.mustKey(e.projA, []string{capability.MentionsRead})
	e.do("PUT", "/api/v1/mentions/"+ms[2].ID+"/assignee", readOnly, map[string]any{"assignee_id": "me"}).expect(403, "FORBIDDEN")

	ids := func(r result) []string {
		var out []string
		for _, it := range r.data()["items"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	if got := ids(e.do("GET", "/api/v1/mentions?assignee=me", editorSession, nil).ok()); !slices.Equal(got, []string{ms[0].ID}) {
		t.Fatalf("editor's assignee=me: %v", got)
	}
	if got := ids(e.do("GET", "/api/v1/mentions?assignee=me", e.sessionA, nil).ok()); !slices.Equal(got, []string{ms[1].ID}) {
		t.Fatalf("owner's assignee=me: %v", got)
	}
	if got := ids(e.do("GET", "/api/v1/mentions?assignee=none", e.keyA, nil).ok()); !slices.Equal(got, []string{ms[2].ID}) {
		t.Fatalf("assignee=none: %v", got)
	}
	e.do("GET", "/api/v1/mentions?assignee=bob", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	r = e.do("DELETE", "/api/v1/mentions/"+ms[1].ID+"/assignee", e.keyA, nil).ok()
	if r.data()["assignee"] != nil {
		t.Fatalf("after unassign: %v", r.data()["assignee"])
	}

	// Tags: normalized, filtered, exported.
	r = e.do("PUT", "/api/v1/mentions/"+ms[2].ID+"/tags/Refund", e.keyA, nil).ok()
	if tags := r.data()["tags"].([]any); len(tags) != 1 || tags[0] != "refund" {
		t.Fatalf("tags %v", tags)
	}
	e.do("PUT", "/api/v1/mentions/"+ms[0].ID+"/tags/vip", e.keyA, nil).ok()
	e.do("PUT", "/api/v1/mentions/"+ms[0].ID+"/tags/has%20space", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	if got := ids(e.do("GET", "/api/v1/mentions?tag=REFUND", e.keyA, nil).ok()); !slices.Equal(got, []string{ms[2].ID}) {
		t.Fatalf("tag=refund: %v", got)
	}
	r = e.do("GET", "/api/v1/tags", e.keyA, nil).ok()
	if n := len(r.data()["tags"].([]any)); n != 2 {
		t.Fatalf("list_tags %s", r.raw)
	}
	r = e.do("GET", "/api/v1/exports/mentions?tag=vip", e.keyA, nil)
	recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("export tag=vip: %v %d rows", err, len(recs))
	}
	col := func(name string) int { return slices.Index(recs[0], name) }
	if recs[1][col("tags")] != "vip" || recs[1][col("assignee_id")] != editor.ID {
		t.Fatalf("export row %v", recs[1])
	}
	// A saved view holds the filters; "me" is each viewer's own.
	e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "Bad", "filters": map[string]any{"assignee": "bob"}}).expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "Mine, VIP", "filters": map[string]any{"assignee": "me", "tag": "vip"}}).ok()
	views := e.do("GET", "/api/v1/views", editorSession, nil).ok().data()["views"].([]any)
	if v := views[len(views)-1].(map[string]any); v["count"] != 1.0 {
		t.Fatalf("the editor's view count %v", v)
	}
	views = e.do("GET", "/api/v1/views", e.sessionA, nil).ok().data()["views"].([]any)
	if v := views[len(views)-1].(map[string]any); v["count"] != 0.0 {
		t.Fatalf("the owner's view count %v", v)
	}
	e.do("DELETE", "/api/v1/mentions/"+ms[2].ID+"/tags/refund", e.keyA, nil).ok()
	if got := ids(e.do("GET", "/api/v1/mentions?tag=refund", e.keyA, nil).ok()); len(got) != 0 {
		t.Fatalf("tag=refund after removal: %v", got)
	}

	// Notes: author shown, listed oldest first, deleted by author or owner only.
	n1 := e.do("POST", "/api/v1/mentions/"+ms[0].ID+"/notes", editorSession, map[string]any{"text": "I'll answer them"}).ok().data()
	if au, _ := n1["author"].(map[string]any); au["id"] != editor.ID {
		t.Fatalf("note %v", n1)
	}
	n2 := e.do("POST", "/api/v1/mentions/"+ms[0].ID+"/notes", e.sessionA, map[string]any{"text": "owner's note"}).ok().data()
	e.do("POST", "/api/v1/mentions/"+ms[0].ID+"/notes", e.keyA, map[string]any{"text": "  "}).expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/mentions/"+bms[0].ID+"/notes", e.keyA, map[string]any{"text": "x"}).expect(404, "NOT_FOUND")
	r = e.do("GET", "/api/v1/mentions/"+ms[0].ID+"/notes", readOnly, nil).ok()
	notes := r.data()["notes"].([]any)
	if len(notes) != 2 || notes[0].(map[string]any)["text"] != "I'll answer them" {
		t.Fatalf("notes %s", r.raw)
	}
	e.do("DELETE", "/api/v1/mentions/"+ms[0].ID+"/notes/"+n2["id"].(string), editorSession, nil).expect(403, "FORBIDDEN")
	e.do("DELETE", "/api/v1/mentions/"+ms[0].ID+"/notes/"+n1["id"].(string), e.keyA, nil).ok() // an owner may (here with their key)
	e.do("DELETE", "/api/v1/mentions/"+ms[0].ID+"/notes/"+n2["id"].(string), e.sessionA, nil).ok()
	if r = e.do("GET", "/api/v1/mentions/"+ms[0].ID+"/notes", e.keyA, nil).ok(); len(r.data()["notes"].([]any)) != 0 {
		t.Fatalf("notes after deletes %s", r.raw)
	}
}

// TestMCPTeamworkTools: the teamwork operations are MCP tools answering
// what REST answers: assign to me, tag, note, and list by assignee and tag.
func TestMCPTeamworkTools(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{
		{Source: "hn", ExternalID: "t1", Text: "Acme refund?", PublishedAt: time.Now().Add(-time.Hour), IsRelevant: true, Category: "question", Sentiment: "neutral"},
		{Source: "hn", ExternalID: "t2", Text: "Acme again", PublishedAt: time.Now().Add(-2 * time.Hour), IsRelevant: true, Category: "other", Sentiment: "neutral"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Created[0].ID
	key := e.issue(e.proj, e.user.ID, nil) // the owner's key: "me" is the owner
	cs := e.overHTTP(key)
	got := callTool(t, cs, "assign_mention", map[string]any{"id": id, "assignee_id": "me"})
	if a, _ := got.data()["assignee"].(map[string]any); got.isError || a["id"] != e.user.ID || a["name"] != "Owner" {
		t.Fatalf("assign_mention: %v", got.env)
	}
	if got = callTool(t, cs, "tag_mention", map[string]any{"id": id, "tag": "refund"}); got.isError {
		t.Fatalf("tag_mention: %v", got.env)
	}
	if got = callTool(t, cs, "add_mention_note", map[string]any{"id": id, "text": "refund sent"}); got.isError || got.data()["text"] != "refund sent" {
		t.Fatalf("add_mention_note: %v", got.env)
	}
	for _, q := range []map[string]any{{"assignee": "me"}, {"tag": "refund"}} {
		list := callTool(t, cs, "list_mentions", q)
		_, want := e.rest("GET", "/api/v1/mentions?"+queryOf(q), key, nil)
		items, _ := list.data()["items"].([]any)
		if list.isError || len(items) != 1 || items[0].(map[string]any)["id"] != id || !reflect.DeepEqual(list.data(), want["data"]) {
			t.Fatalf("list_mentions %v: %v\nREST %v", q, list.env, want["data"])
		}
	}
	notes := callTool(t, cs, "list_mention_notes", map[string]any{"id": id})
	if ns, _ := notes.data()["notes"].([]any); len(ns) != 1 {
		t.Fatalf("list_mention_notes: %v", notes.env)
	}
}

func queryOf(q map[string]any) string {
	v := url.Values{}
	for k, x := range q {
		v.Set(k, x.(string))
	}
	return v.Encode()
}
