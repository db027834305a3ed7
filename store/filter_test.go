package store_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"earshot/store"
	"earshot/vocab"
)

// TestFilterSQLEqualsMatch runs every filter field through both halves of
// the one mention filter, the SQL translation (ListMentions, CountMentions)
// and the in-memory predicate (Match, which alerts use), on the same
// stored rows, and wants the same mentions from both: Unicode case
// folding, since/until exactly at a mention's publication time, author
// handle case, every facet. Rows sit both in the trigram index and in its
// pending queue, and each filter runs with its value index (rare) and by
// walking the date order (common), newest first and by urgency, so every
// SQL path the filter can take is compared.
func TestFilterSQLEqualsMatch(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	var mons []*store.Monitor
	for _, name := range []string{"one", "two", "unused"} {
		m := &store.Monitor{ProjectID: p.ID, Name: name, Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"}, Active: true,
			ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "custom"}
		if err := st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		mons = append(mons, m)
	}
	m1, m2, m3 := mons[0].ID, mons[1].ID, mons[2].ID
	// now is when presets resolve; boundary is a publication time that
	// since and until hit exactly.
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	boundary := now.Add(-2 * time.Hour)
	row := func(id, source, author, text string, at time.Time, urgency int, category, sentiment string, mons ...string) store.NewMention {
		return store.NewMention{Source: source, ExternalID: id, URL: "https://example.com/" + id, AuthorHandle: author, Text: text,
			PublishedAt: at, IsRelevant: true, Category: category, Sentiment: sentiment, Urgency: urgency, MonitorIDs: mons}
	}
	first := []store.NewMention{
		row("a", "reddit", "Angry_Dev", "Die STRASSE ist gesperrt, Acme", now.Add(-time.Hour), 80, "complaint", "negative", m1),
		row("b", "x", "angry_dev", "straße closed again by Acme", boundary, 70, "bug_report", "negative", m2, m1),
		row("c", "x", "Émile", "Un café à l'ÉCOLE, Acme", boundary.Add(time.Millisecond), 69, "testimonial", "positive", m2),
		row("d", "x", "émile", "ecole and cafe, Acme", boundary.Add(-time.Millisecond), 71, "product_idea", "neutral"),
		row("e", "news", "acme", "Acme launches the new board", now.Add(-72*time.Hour), 0, "other", "neutral", m1),
		row("f", "hn", "troll", "Acme is a scam", now.Add(-10*24*time.Hour), 100, "misinformation", "negative", m1),
		row("g", "bluesky", "fan", "I love Acme", now.Add(-13*time.Hour), 10, "testimonial", "positive", m2),
	}
	first[4].Own, first[4].IsRelevant = true, false // the brand's own post
	first[5].IsRelevant = false
	first[6].URL = "https://example.com/acme-launch" // g and h share a link: one story
	if _, err := st.IngestMentions(ctx, p.ID, 0, first); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IngestMentions(ctx, other.ID, 0, first); err != nil { // never leaks in
		t.Fatal(err)
	}
	// The first rows go into the trigram index; the second stay pending.
	if _, err := st.IndexSearch(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // a later collected_at
	second := []store.NewMention{
		row("h", "mastodon", "FAN", "Acme launch: the new board, STRASSE edition", now.Add(-12*time.Hour), 55, "testimonial", "positive", m1),
		row("i", "youtube", "ANGRY_DEV", "Acme straße video", now.Add(-25*time.Hour), 90, "complaint", "negative", m2),
	}
	second[0].URL = "https://example.com/acme-launch"
	res, err := st.IngestMentions(ctx, p.ID, 0, second)
	if err != nil {
		t.Fatal(err)
	}
	collectedSecond, err := store.ParseTime(res.Created[0].CollectedAt)
	if err != nil {
		t.Fatal(err)
	}
	all := listAll(t, st, store.MentionFilter{ProjectID: p.ID}, 100)
	byExt := map[string]*store.Mention{}
	for _, m := range all {
		byExt[m.ExternalID] = m
	}
	for ext, status := range map[string]string{"a": "reviewed", "c": "done", "f": "ignored"} {
		if _, err := st.UpdateMentionStatus(ctx, p.ID, byExt[ext].ID, status); err != nil {
			t.Fatal(err)
		}
	}
	for ext, vis := range map[string]string{"c": "featured", "g": "hidden"} {
		if _, err := st.UpdateMention(ctx, p.ID, byExt[ext].ID, store.MentionChange{PublicVisibility: vis}); err != nil {
			t.Fatal(err)
		}
	}
	// Teamwork: b and h assigned to the owner, a and b tagged.
	for _, ext := range []string{"b", "h"} {
		if _, err := st.AssignMention(ctx, p.ID, byExt[ext].ID, p.OwnerID); err != nil {
			t.Fatal(err)
		}
	}
	for ext, tag := range map[string]string{"a": "refund", "b": "refund", "i": "vip"} {
		if _, err := st.TagMention(ctx, p.ID, byExt[ext].ID, tag, true); err != nil {
			t.Fatal(err)
		}
	}
	all = listAll(t, st, store.MentionFilter{ProjectID: p.ID}, 100)
	for _, m := range all {
		byExt[m.ExternalID] = m
	}
	story := byExt["h"].StoryID
	if story == nil || byExt["g"].StoryID == nil || *byExt["g"].StoryID != *story {
		t.Fatalf("g and h share no story: %v %v", byExt["g"].StoryID, story)
	}

	n := func(v int) *int { return &v }
	yes, no := true, false
	at := func(t time.Time) *time.Time { return &t }
	cases := []store.MentionFilter{
		{MonitorID: m1}, {MonitorID: m2}, {MonitorID: m3},
		{Source: "x"}, {Source: "reddit"}, {Source: "threads"},
		{Category: "testimonial"}, {Category: "misinformation"}, {NotCategory: "testimonial"},
		{Sentiment: "negative"}, {Sentiment: "neutral"},
		{Status: "new"}, {Status: "reviewed"}, {Status: "done"}, {Status: "ignored"}, {NotStatus: "new"}, {NotStatus: "ignored", Status: "done"},
		{MinUrgency: n(70)}, {MaxUrgency: n(70)}, {MinUrgency: n(70), MaxUrgency: n(70)}, {MinUrgency: n(100)}, {MaxUrgency: n(0)},
		// Handles: ASCII case ignored, other letters compared as written.
		{AuthorHandle: "angry_dev"}, {AuthorHandle: "ANGRY_DEV"}, {AuthorHandle: "Angry_Dev", Status: "new"}, {AuthorHandle: "émile"},
		{AuthorHandle: "ÉMILE"}, {AuthorHandle: "fan"}, {AuthorHandle: "nobody"},
		// Search: Unicode case folding; short searches walk, long ones may
		// ask the trigram index first.
		{Search: "straße"}, {Search: "STRASSE"}, {Search: "strasse"}, {Search: "Straße closed"}, {Search: "ß"}, {Search: "ss"},
		{Search: "café"}, {Search: "CAFÉ"}, {Search: "école"}, {Search: "ecole"}, {Search: "acme"}, {Search: "no such words"},
		{IsRelevant: &yes}, {IsRelevant: &no}, {Own: &yes}, {Own: &no},
		// Bounds exactly at a publication time: since inclusive, until exclusive.
		{Since: at(boundary)}, {Until: at(boundary)}, {Since: at(boundary), Until: at(boundary.Add(time.Millisecond))},
		{Since: at(boundary.Add(-time.Millisecond)), Until: at(boundary.Add(2 * time.Millisecond))}, {Since: at(now.Add(-24 * time.Hour)), Sentiment: "negative"},
		{CollectedSince: at(collectedSecond)}, {CollectedSince: at(collectedSecond), Source: "youtube"},
		{PublicVisibility: "auto"}, {PublicVisibility: "featured"}, {PublicVisibility: "hidden"}, {WallAuto: true}, {WallAuto: true, Since: at(boundary)},
		{StoryID: *story}, {StoryID: *story, PublicVisibility: "hidden"},
		{ByUrgency: true, MinUrgency: n(60), Source: "x"},
		{Assignee: p.OwnerID}, {Assignee: store.AssigneeNone}, {Assignee: p.OwnerID, Status: "new"}, {Assignee: other.OwnerID},
		{Tag: "refund"}, {Tag: "vip"}, {Tag: "none-such"}, {Tag: "refund", Assignee: p.OwnerID}, {Tag: "refund", Source: "reddit"},
		{Source: "x", Category: "bug_report", MinUrgency: n(70), Search: "STRASSE", MonitorID: m1, Since: at(boundary), Status: "new"},
	}
	// The written form, resolved at now: presets, a bare date, a handle's @.
	for _, w := range []store.Filter{
		{DatePreset: "today"}, {DatePreset: "last_24_hours"}, {DatePreset: "last_7_days"}, {DatePreset: "last_30_days"},
		{DatePreset: "last_90_days"}, {DatePreset: "month_to_date"}, {DatePreset: "all_time"},
		{DatePreset: "last_7_days", Since: "2026-03-14"}, {Until: "2026-03-14T10:00:00Z"}, {Since: "2026-03-14t10:00:00z"},
		{AuthorHandle: "@ANGRY_DEV"}, {Search: "strasse", MonitorID: m2, IsRelevant: &yes, Own: &no},
	} {
		cases = append(cases, w.Resolve(p.ID, now))
	}

	covered := map[string]bool{}
	for _, c := range cases {
		v := reflect.ValueOf(c)
		for i := range v.NumField() {
			if !v.Field(i).IsZero() {
				covered[v.Type().Field(i).Name] = true
			}
		}
	}
	// Not compared here: CollapseStories changes the list's shape (one row
	// per story), OwnBrand needs the monitors' groups (SQL only, Match
	// refuses it); ProjectID is set below on every case.
	for _, f := range reflect.VisibleFields(reflect.TypeFor[store.MentionFilter]()) {
		if !covered[f.Name] && !slices.Contains([]string{"CollapseStories", "OwnBrand", "ProjectID"}, f.Name) {
			t.Errorf("no case sets MentionFilter.%s: give it one, in SQL and in Match", f.Name)
		}
	}

	for i, c := range cases {
		c.ProjectID = p.ID
		var want []string
		for _, m := range all {
			if c.Match(m) {
				want = append(want, m.ExternalID)
			}
		}
		slices.Sort(want)
		for _, rare := range []bool{true, false} {
			for _, byUrgency := range []bool{false, true} {
				if byUrgency && c.CollectedSince != nil {
					continue // sync mode has its own order
				}
				name := fmt.Sprintf("case %d %+v rare=%v byUrgency=%v", i, c, rare, byUrgency)
				f := c
				f.ByUrgency = f.ByUrgency || byUrgency
				restore := store.SetRareFacetCap(map[bool]int{true: 1000, false: 0}[rare])
				page, err := st.ListMentions(ctx, f, nil, 1000)
				if err != nil {
					restore()
					t.Fatalf("%s: %v", name, err)
				}
				count, err := st.CountMentions(ctx, f, 1000)
				restore()
				if err != nil {
					t.Fatalf("%s: count: %v", name, err)
				}
				var got []string
				for _, m := range page {
					got = append(got, m.ExternalID)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s:\n SQL   %v\n Match %v", name, got, want)
				}
				if count != len(want) {
					t.Errorf("%s: CountMentions %d, Match %d", name, count, len(want))
				}
			}
		}
	}
	// A mention of another project never matches.
	otherRow := *byExt["a"]
	otherRow.ProjectID = other.ID
	if (store.MentionFilter{ProjectID: p.ID}).Match(&otherRow) {
		t.Error("another project's mention matched")
	}
}

// TestPresetSince: the presets' windows, in UTC whatever the clock's zone.
func TestPresetSince(t *testing.T) {
	now := time.Date(2026, 3, 14, 1, 30, 0, 0, time.FixedZone("CET", 3600)) // 00:30 UTC
	for preset, want := range map[string]string{
		"today": "2026-03-14T00:00:00Z", "last_24_hours": "2026-03-13T00:30:00Z", "last_7_days": "2026-03-07T00:30:00Z",
		"last_30_days": "2026-02-12T00:30:00Z", "last_90_days": "2025-12-14T00:30:00Z", "month_to_date": "2026-03-01T00:00:00Z",
	} {
		got, ok := store.PresetSince(preset, now)
		if !ok || got.Format(time.RFC3339) != want || got.Location() != time.UTC {
			t.Errorf("%s: %v %v, want %s", preset, got, ok, want)
		}
	}
	if _, ok := store.PresetSince("all_time", now); ok {
		t.Error("all_time has a bound")
	}
	// The presets the filter validates are the ones resolved here.
	sf, _ := reflect.TypeFor[store.Filter]().FieldByName("DatePreset")
	if tag := sf.Tag.Get("validate"); tag != "enum=@date_presets" {
		t.Errorf("date_preset validates %q, want the vocabulary's date presets", tag)
	}
	for _, p := range vocab.DatePresets {
		if _, ok := store.PresetSince(p, now); !ok && p != "all_time" {
			t.Errorf("preset %s has no window", p)
		}
	}
}
