package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// Issue 24, point 8: get_mention_stats reads whole hours from
// mention_hours (migration 160), which triggers keep. Its counts must stay
// exact: after inserts, status changes, sentiment changes, deletes and a
// deleted project, every series (by hour, by day, a window ending inside
// an hour, each filter the table answers) equals a brute-force count of
// the mentions, and equals what counting the mentions themselves gives.
func TestMentionHoursStayExact(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p := testProject(t, st, "main")
	other := testProject(t, st, "other")
	r := rand.New(rand.NewPCG(7, 9))
	now := time.Now().UTC().Truncate(time.Millisecond) // as stored: bounds compare as stored strings
	sentiments := []string{"positive", "neutral", "negative"}
	statuses := []string{"new", "reviewed", "done", "ignored"}
	monitorSets := [][]string{nil, {"mon-a"}, {"mon-b"}, {"mon-a", "mon-b"}}
	ingest := func(projectID string, n, from int) {
		var batch []NewMention
		for i := range n {
			at := now.Add(-time.Duration(r.IntN(4*24*3600)) * time.Second) // the last 4 days, any second
			batch = append(batch, NewMention{Source: "x", ExternalID: fmt.Sprint("m", from+i), Text: "t", PublishedAt: at,
				IsRelevant: true, Category: "other", Sentiment: sentiments[r.IntN(3)], MonitorIDs: monitorSets[r.IntN(4)]})
		}
		if _, err := st.IngestMentions(ctx, projectID, 0, batch); err != nil {
			t.Fatal(err)
		}
	}
	ingest(p.ID, 400, 0)
	ingest(other.ID, 100, 0)

	// Status changes through the store's path, and other writes as raw
	// SQL (a reclassification, a purge, a moved publication time).
	ms, err := st.ListMentions(ctx, MentionFilter{ProjectID: p.ID}, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		switch {
		case i%3 == 0:
			if _, err := st.UpdateMentionStatus(ctx, p.ID, m.ID, statuses[1+r.IntN(3)]); err != nil {
				t.Fatal(err)
			}
		case i%7 == 1:
			if _, err := st.w.ExecContext(ctx, `UPDATE mentions SET sentiment = ? WHERE id = ?`, sentiments[r.IntN(3)], m.ID); err != nil {
				t.Fatal(err)
			}
		case i%11 == 2:
			if _, err := st.w.ExecContext(ctx, `DELETE FROM mentions WHERE id = ?`, m.ID); err != nil {
				t.Fatal(err)
			}
		case i%13 == 3:
			if _, err := st.w.ExecContext(ctx, `UPDATE mentions SET published_at = ? WHERE id = ?`, FormatTime(now.Add(-50*time.Hour)), m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	ingest(p.ID, 100, 1000) // more after the changes
	// A third monitor finds mentions already stored: new links to old rows.
	var again []NewMention
	for i := range 60 {
		again = append(again, NewMention{Source: "x", ExternalID: fmt.Sprint("m", i*5), Text: "t", PublishedAt: now.Add(-time.Minute),
			IsRelevant: true, Category: "other", Sentiment: "neutral", MonitorIDs: []string{"mon-c"}})
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, again); err != nil {
		t.Fatal(err)
	}
	// The other project's mentions go with it (a cascade fires the
	// delete trigger too); its rows must not linger or leak.
	if _, err := st.w.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, other.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM mention_hours WHERE project_id = ?`, other.ID).Scan(&left); err != nil || left != 0 {
		t.Errorf("a deleted project's hours: %d rows (%v)", left, err)
	}

	type row struct {
		at                time.Time
		status, sentiment string
		monitors          []string
	}
	var all []row
	err = st.eachRow(ctx, `SELECT published_at, status, sentiment, id FROM mentions WHERE project_id = ?`, []any{p.ID}, func(scan func(...any) error) error {
		var at, status, sentiment, id string
		if err := scan(&at, &status, &sentiment, &id); err != nil {
			return err
		}
		t, err := ParseTime(at)
		all = append(all, row{t, status, sentiment, []string{id}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		id := all[i].monitors[0]
		all[i].monitors = nil
		err := st.eachRow(ctx, `SELECT monitor_id FROM mention_monitors WHERE mention_id = ?`, []any{id}, func(scan func(...any) error) error {
			var m string
			err := scan(&m)
			all[i].monitors = append(all[i].monitors, m)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	series := func(step time.Duration, until time.Time, n int) []time.Time {
		start := until.Truncate(step).Add(-time.Duration(n-1) * step)
		var b []time.Time
		for t := start; t.Before(until); t = t.Add(step) {
			b = append(b, t)
		}
		return append(b, until)
	}
	windows := map[string][]time.Time{
		"hours to now":         series(time.Hour, now, 100),
		"days to now":          series(24*time.Hour, now, 6),
		"hours to a whole one": series(time.Hour, now.Truncate(time.Hour), 30),
		"days to an hour":      series(24*time.Hour, now.Truncate(time.Hour).Add(-5*time.Hour), 4),
	}
	filters := map[string]MentionFilter{
		"all":          {ProjectID: p.ID},
		"status new":   {ProjectID: p.ID, Status: "new"},
		"not ignored":  {ProjectID: p.ID, NotStatus: "ignored"},
		"negative":     {ProjectID: p.ID, Sentiment: "negative"},
		"negative new": {ProjectID: p.ID, Sentiment: "negative", Status: "new"},
	}
	for wname, bounds := range windows {
		if !hourAligned(bounds) {
			t.Fatalf("%s: the window does not take the mention_hours path", wname)
		}
		for fname, f := range filters {
			if !hourCountable(f) {
				t.Fatalf("%s: the filter does not take the mention_hours path", fname)
			}
			want := make([]SentimentCounts, len(bounds)-1)
			wantMon := map[string][]int{}
			for _, m := range all {
				if f.Status != "" && m.status != f.Status || f.NotStatus != "" && m.status == f.NotStatus || f.Sentiment != "" && m.sentiment != f.Sentiment {
					continue
				}
				if i := bucketOf(bounds, FormatTime(m.at)); i >= 0 {
					want[i].add(m.sentiment, 1)
					for _, mon := range m.monitors {
						if wantMon[mon] == nil {
							wantMon[mon] = make([]int, len(bounds)-1)
						}
						wantMon[mon][i]++
					}
				}
			}
			gotMon, err := st.MentionCountsByMonitor(ctx, f, bounds)
			if err != nil {
				t.Fatal(err)
			}
			scannedMon := map[string][]int{}
			err = st.scanMonitorCounts(ctx, f, bounds, func(mon string, i, n int) {
				if scannedMon[mon] == nil {
					scannedMon[mon] = make([]int, len(bounds)-1)
				}
				scannedMon[mon][i] += n
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotMon, wantMon) || !reflect.DeepEqual(scannedMon, wantMon) {
				t.Errorf("%s, %s: by monitor: rollup %v, scan %v, brute force %v", wname, fname, gotMon, scannedMon, wantMon)
			}
			if fname == "all" && len(wantMon) != 3 {
				t.Errorf("%s: %d monitors in the window, want 3", wname, len(wantMon))
			}
			got, err := st.MentionCounts(ctx, f, bounds)
			if err != nil {
				t.Fatal(err)
			}
			scanned := make([]SentimentCounts, len(bounds)-1)
			if err := st.scanCounts(ctx, f, bounds, scanned); err != nil {
				t.Fatal(err)
			}
			total := 0
			for i := range want {
				total += want[i].Total
				if got[i] != want[i] || scanned[i] != want[i] {
					t.Errorf("%s, %s: bucket %d (%s): rollup %+v, scan %+v, brute force %+v", wname, fname, i, FormatTime(bounds[i]), got[i], scanned[i], want[i])
				}
			}
			if fname == "all" && total == 0 {
				t.Errorf("%s: no mentions in the window", wname)
			}
		}
	}
	// A filter the table cannot answer still counts the mentions.
	if hourCountable(MentionFilter{ProjectID: p.ID, Source: "x"}) || hourCountable(MentionFilter{ProjectID: p.ID, Search: "t"}) {
		t.Error("source and search must not take the mention_hours path")
	}
}
