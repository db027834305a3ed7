package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"earshot/store"
)

// teamMentions stores n relevant mentions in p and returns their ids,
// newest first.
func teamMentions(t *testing.T, st *store.Store, projectID string, n int) []string {
	t.Helper()
	var nm []store.NewMention
	base := time.Now().Add(-time.Hour)
	for i := range n {
		nm = append(nm, store.NewMention{Source: "x", ExternalID: string(rune('a' + i)), Text: "acme", PublishedAt: base.Add(time.Duration(i) * time.Minute),
			IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	res, err := st.IngestMentions(context.Background(), projectID, 0, nm)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, n)
	for i, m := range res.Created {
		ids[n-1-i] = m.ID
	}
	return ids
}

func listIDs(t *testing.T, st *store.Store, f store.MentionFilter) []string {
	t.Helper()
	ms, err := st.ListMentions(context.Background(), f, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
		if !f.Match(m) {
			t.Errorf("listed %s, which Match refuses", m.ID)
		}
	}
	return ids
}

// TestAssignMention: only members can be assigned; a real change records
// one mention.assigned with the previous assignee; the assignee filter (a
// user, or none) lists exactly the assigned (unassigned) mentions, in SQL
// and in Match; counting agrees.
func TestAssignMention(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, _ := twoProjects(t, st)
	owner := p.OwnerID
	ids := teamMentions(t, st, p.ID, 3)
	drain(t, st)
	stranger, err := st.CreateUser(ctx, "stranger@example.com", "x", "Stranger")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AssignMention(ctx, p.ID, ids[1], stranger.ID); !errors.Is(err, store.ErrNotMember) {
		t.Fatalf("assigning a non-member: %v, want ErrNotMember", err)
	}
	m, err := st.AssignMention(ctx, p.ID, ids[1], owner)
	if err != nil {
		t.Fatal(err)
	}
	if m.Assignee == nil || m.Assignee.ID != owner || m.Assignee.Name != "owner@example.com" {
		t.Fatalf("assignee %+v", m.Assignee)
	}
	evs := drain(t, st)
	if len(evs) != 1 || evs[0].Type != "mention.assigned" {
		t.Fatalf("events %v, want one mention.assigned", evs)
	}
	var body struct {
		Data struct {
			Mention struct {
				Assignee *struct{ ID, Name string } `json:"assignee"`
			} `json:"mention"`
			Previous *struct{ ID string } `json:"previous_assignee"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(evs[0].Payload), &body); err != nil {
		t.Fatal(err)
	}
	if a := body.Data.Mention.Assignee; a == nil || a.ID != owner || body.Data.Previous != nil {
		t.Fatalf("payload %s", evs[0].Payload)
	}
	if _, err := st.AssignMention(ctx, p.ID, ids[1], owner); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, st); len(evs) != 0 {
		t.Fatalf("assigning the same member again recorded %d events", len(evs))
	}
	if got := listIDs(t, st, store.MentionFilter{ProjectID: p.ID, Assignee: owner}); !slices.Equal(got, []string{ids[1]}) {
		t.Fatalf("assigned to owner: %v, want %v", got, ids[1:2])
	}
	if got := listIDs(t, st, store.MentionFilter{ProjectID: p.ID, Assignee: store.AssigneeNone}); !slices.Equal(got, []string{ids[0], ids[2]}) {
		t.Fatalf("unassigned: %v", got)
	}
	if n, err := st.CountMentions(ctx, store.MentionFilter{ProjectID: p.ID, Assignee: owner}, 1000); err != nil || n != 1 {
		t.Fatalf("count assigned: %d %v", n, err)
	}
	m, err = st.AssignMention(ctx, p.ID, ids[1], "")
	if err != nil || m.Assignee != nil {
		t.Fatalf("unassign: %+v %v", m.Assignee, err)
	}
	evs = drain(t, st)
	if len(evs) != 1 || evs[0].Type != "mention.assigned" {
		t.Fatalf("unassign events %v", evs)
	}
	if err := json.Unmarshal([]byte(evs[0].Payload), &body); err != nil || body.Data.Previous == nil || body.Data.Previous.ID != owner {
		t.Fatalf("unassign payload %s", evs[0].Payload)
	}
}

// TestTagMention: tags are kept sorted on the mention, adding twice or
// removing an absent one changes nothing, the tag filter lists exactly
// the tagged mentions (not another project's), and a mention holds at
// most MaxTags.
func TestTagMention(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	ids := teamMentions(t, st, p.ID, 3)
	otherIDs := teamMentions(t, st, other.ID, 1)
	for _, tag := range []string{"refund", "billing", "refund"} {
		if _, err := st.TagMention(ctx, p.ID, ids[0], tag, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.TagMention(ctx, p.ID, ids[2], "billing", true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TagMention(ctx, other.ID, otherIDs[0], "billing", true); err != nil {
		t.Fatal(err)
	}
	m, err := st.Mention(ctx, p.ID, ids[0])
	if err != nil || !slices.Equal(m.Tags, []string{"billing", "refund"}) {
		t.Fatalf("tags %v %v", m.Tags, err)
	}
	if got := listIDs(t, st, store.MentionFilter{ProjectID: p.ID, Tag: "billing"}); !slices.Equal(got, []string{ids[0], ids[2]}) {
		t.Fatalf("tag billing: %v", got)
	}
	if got := listIDs(t, st, store.MentionFilter{ProjectID: p.ID, Tag: "refund"}); !slices.Equal(got, []string{ids[0]}) {
		t.Fatalf("tag refund: %v", got)
	}
	if m, err = st.TagMention(ctx, p.ID, ids[0], "refund", false); err != nil || !slices.Equal(m.Tags, []string{"billing"}) {
		t.Fatalf("after removing: %v %v", m.Tags, err)
	}
	if m, err = st.TagMention(ctx, p.ID, ids[0], "nope", false); err != nil || !slices.Equal(m.Tags, []string{"billing"}) {
		t.Fatalf("removing an absent tag: %v %v", m.Tags, err)
	}
	if got := listIDs(t, st, store.MentionFilter{ProjectID: p.ID, Tag: "refund"}); len(got) != 0 {
		t.Fatalf("tag refund after removal: %v", got)
	}
	tags, err := st.ProjectTags(ctx, p.ID, 10)
	if err != nil || len(tags) != 1 || tags[0] != (store.TagCount{Tag: "billing", Count: 2}) {
		t.Fatalf("project tags %v %v", tags, err)
	}
	for i := range store.MaxTags - 1 {
		if _, err := st.TagMention(ctx, p.ID, ids[1], string(rune('a'+i)), true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.TagMention(ctx, p.ID, ids[1], "last", true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TagMention(ctx, p.ID, ids[1], "one-too-many", true); !errors.Is(err, store.ErrTooManyTags) {
		t.Fatalf("tag %d: %v, want ErrTooManyTags", store.MaxTags+1, err)
	}
}

// TestMentionNotes: notes are listed oldest first with their author, only
// within the project, and deleted by id.
func TestMentionNotes(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	ids := teamMentions(t, st, p.ID, 1)
	a, err := st.AddNote(ctx, p.ID, ids[0], p.OwnerID, "called them back")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // created_at has millisecond precision; the order is by it
	if _, err := st.AddNote(ctx, p.ID, ids[0], "", "from the CLI"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddNote(ctx, other.ID, ids[0], p.OwnerID, "wrong project"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("note on another project's mention: %v", err)
	}
	ns, err := st.Notes(ctx, p.ID, ids[0])
	if err != nil || len(ns) != 2 || ns[0].Text != "called them back" || ns[0].AuthorName != "owner@example.com" || ns[1].AuthorID != nil {
		t.Fatalf("notes %+v %v", ns, err)
	}
	if _, err := st.Notes(ctx, other.ID, ids[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("notes through another project: %v", err)
	}
	if err := st.DeleteNote(ctx, p.ID, ids[0], a.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteNote(ctx, p.ID, ids[0], a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if ns, _ := st.Notes(ctx, p.ID, ids[0]); len(ns) != 1 {
		t.Fatalf("%d notes after delete", len(ns))
	}
}

// TestPasswordReset: a token works once, before it expires, and is stored
// hashed; using it sets the password and ends the user's sessions.
func TestPasswordReset(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "reset@example.com", "old-hash", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateSession(ctx, u.ID, "tok-team-test", time.Hour); err != nil {
		t.Fatal(err)
	}
	tok, err := st.CreatePasswordReset(ctx, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.PasswordResetUser(ctx, tok); err != nil || got != u.ID {
		t.Fatalf("check: %q %v", got, err)
	}
	proj, err := st.CreateProject(ctx, u.ID, "Reset", nil)
	if err != nil {
		t.Fatal(err)
	}
	minted := &store.APIKey{ProjectID: proj.ID, Name: "from a session", Prefix: "esk_abcd", Last4: "wxyz", Scopes: []string{"mentions:read"}, CreatedBy: u.ID, MintedBySession: true}
	if err := st.CreateAPIKey(ctx, minted, []byte("reset-test-hash")); err != nil {
		t.Fatal(err)
	}
	got, revoked, err := st.UsePasswordReset(ctx, tok, "new-hash")
	if err != nil || got != u.ID {
		t.Fatalf("use: %q %v", got, err)
	}
	// A reset by email revokes what the user's sessions minted, as a
	// password change does (issue 25 L2).
	if len(revoked) != 1 || revoked[0].ID != minted.ID {
		t.Fatalf("revoked by the reset: %v", revoked)
	}
	if _, err := st.APIKeyByHash(ctx, []byte("reset-test-hash")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the session's key still authenticates after a reset: %v", err)
	}
	if _, _, err := st.UsePasswordReset(ctx, tok, "again"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second use: %v", err)
	}
	if u2, _ := st.UserByID(ctx, u.ID); u2.PasswordHash != "new-hash" {
		t.Fatalf("hash %q", u2.PasswordHash)
	}
	if n, _, err := st.ResetCredentials(ctx, u.ID, "new-hash", ""); err != nil || n != 0 {
		t.Fatalf("%d sessions left after a reset (%v)", n, err)
	}
	expired, err := st.CreatePasswordReset(ctx, u.ID, -time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.UsePasswordReset(ctx, expired, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired token: %v", err)
	}
}

// TestUserTimeZone: stored per user, UTC ("") by default.
func TestUserTimeZone(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "tz@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	if z, err := st.UserTimeZone(ctx, u.ID); err != nil || z != "" {
		t.Fatalf("default %q %v", z, err)
	}
	if err := st.SetUserTimeZone(ctx, u.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if z, _ := st.UserTimeZone(ctx, u.ID); z != "Europe/Paris" {
		t.Fatalf("zone %q", z)
	}
}
