package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func schedFixture(t *testing.T) (*Store, *Project) {
	t.Helper()
	st := openTest(t)
	return st, testProject(t, st, "Sched")
}

func schedMonitor(t *testing.T, st *Store, projectID, name string) *Monitor {
	t.Helper()
	m := &Monitor{ProjectID: projectID, Name: name, Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"hn"},
		Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "custom"}
	if err := st.CreateMonitor(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClaimDueMonitors(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	a := schedMonitor(t, st, p.ID, "a")
	paused := schedMonitor(t, st, p.ID, "paused")
	paused.Active = false
	if err := st.SaveMonitor(ctx, paused, false); err != nil {
		t.Fatal(err)
	}
	deleted := schedMonitor(t, st, p.ID, "deleted")
	if err := st.DeleteMonitor(ctx, p.ID, deleted.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)

	got, err := st.ClaimDueMonitors(ctx, "one", now, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != a.ID {
		t.Fatalf("claimed %v, want only the active monitor", got)
	}
	// Leased: nobody else gets it, not even after it is nudged.
	if err := st.NudgeMonitor(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ClaimDueMonitors(ctx, "two", now.Add(time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatalf("second owner claimed a leased monitor: %v", got)
	}
	if err := st.FinishMonitorScan(ctx, a.ID, "two", now.Add(time.Hour)); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("finish by a non-owner: %v", err)
	}
	// Nudged during the scan: still due right after the scan.
	if err := st.FinishMonitorScan(ctx, a.ID, "one", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = st.ClaimDueMonitors(ctx, "two", now.Add(2*time.Second), time.Minute, 10)
	if len(got) != 1 {
		t.Fatalf("nudged monitor not due after its scan")
	}
	if err := st.FinishMonitorScan(ctx, a.ID, "two", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ClaimDueMonitors(ctx, "one", now.Add(time.Minute), time.Minute, 10); len(got) != 0 {
		t.Fatalf("monitor due before its next scan time")
	}
	if got, _ := st.ClaimDueMonitors(ctx, "one", now.Add(time.Hour+time.Second), time.Minute, 10); len(got) != 1 {
		t.Fatalf("monitor not due at its next scan time")
	}
	// The lease expires without a finish (a dead scheduler): due again.
	if got, _ := st.ClaimDueMonitors(ctx, "two", now.Add(time.Hour+2*time.Minute), time.Minute, 10); len(got) != 1 {
		t.Fatalf("expired lease not reclaimed")
	}
	// Archived projects are not scanned.
	if err := st.ArchiveProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ClaimDueMonitors(ctx, "one", now.Add(48*time.Hour), time.Minute, 10); len(got) != 0 {
		t.Fatalf("archived project's monitor claimed")
	}
}

func TestClaimDueMonitorsConcurrent(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	for i := 0; i < 20; i++ {
		schedMonitor(t, st, p.ID, "m")
	}
	now := time.Now().Add(time.Second)
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for _, owner := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			for range 10 {
				got, err := st.ClaimDueMonitors(ctx, owner, now, time.Minute, 3)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, m := range got {
					if prev, dup := seen[m.ID]; dup {
						t.Errorf("monitor %s claimed by %s and %s", m.ID, prev, owner)
					}
					seen[m.ID] = owner
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 20 {
		t.Errorf("%d monitors claimed, want 20", len(seen))
	}
}

func TestSourceRecordRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	m := schedMonitor(t, st, p.ID, "m")
	rec, err := st.SourceState(ctx, m.ID, "hn")
	if err != nil || rec.Status != "pending" || rec.State != "" {
		t.Fatalf("fresh source: %+v %v", rec, err)
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	rec = SourceRecord{MonitorID: m.ID, Source: "hn", State: "cursor-1", Status: "failing", LastError: "boom", FailingSince: &t0,
		ConsecutiveFailures: 2, LastOKAt: &t0, LastPostAt: &t0, EmptyScans: 1, Scans: 7, PostGap: 90 * time.Minute}
	scan := &ScanRecord{MonitorID: m.ID, Source: "hn", StartedAt: t0, FinishedAt: t0.Add(time.Second), Fetched: 5, Matched: 4, New: 3, Duplicates: 1, Error: "boom"}
	ev, _ := NewEvent(p.ID, "monitor.scan_failed", map[string]any{"monitor_id": m.ID})
	if err := st.SaveSourceResult(ctx, rec, scan, ev); err != nil {
		t.Fatal(err)
	}
	got, err := st.SourceState(ctx, m.ID, "hn")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "cursor-1" || got.Status != "failing" || got.ConsecutiveFailures != 2 || !got.FailingSince.Equal(t0) ||
		got.Scans != 7 || got.PostGap != 90*time.Minute || got.EmptyScans != 1 || got.RateLimitedUntil != nil {
		t.Errorf("round trip: %+v", got)
	}
	scans, err := st.RecentScans(ctx, m.ID, 10)
	if err != nil || len(scans) != 1 || scans[0].New != 3 || scans[0].Error != "boom" {
		t.Errorf("scans: %+v %v", scans, err)
	}
	all, err := st.SourceStates(ctx, m.ID)
	if err != nil || len(all) != 1 || all["hn"].State != "cursor-1" {
		t.Errorf("SourceStates: %+v %v", all, err)
	}
	mon, err := st.Monitor(ctx, p.ID, m.ID)
	if err != nil || len(mon.SourceStatus) != 1 || mon.SourceStatus[0].Status != "failing" || mon.SourceStatus[0].LastError != "boom" {
		t.Errorf("monitor source status: %+v %v", mon.SourceStatus, err)
	}
	var n int
	if err := st.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE type = 'monitor.scan_failed'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("events: %d %v", n, err)
	}
	if pruned, err := st.PruneScans(ctx, t0.Add(time.Hour)); err != nil || pruned != 1 {
		t.Errorf("prune: %d %v", pruned, err)
	}
}

func TestQuotaLedger(t *testing.T) {
	ctx := context.Background()
	st, _ := schedFixture(t)
	l := st.QuotaLedger()
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for range 8 {
		wg.Go(func() {
			for range 10 {
				ok, err := l.Spend(ctx, "youtube", "2026-05-01", 100, 5000)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if granted != 50 {
		t.Errorf("granted %d spends of 100 within 5000, want 50", granted)
	}
	if n, _ := l.Spent(ctx, "youtube", "2026-05-01"); n != 5000 {
		t.Errorf("spent %d", n)
	}
	if ok, _ := l.Spend(ctx, "youtube", "2026-05-02", 6000, 5000); ok {
		t.Error("a spend larger than the limit was granted")
	}
	if ok, _ := l.Spend(ctx, "youtube", "2026-05-02", 5000, 5000); !ok {
		t.Error("a spend of exactly the limit was refused")
	}
}

// A running scan renews its lease (the heartbeat): the monitor stays its
// owner's past the first lease's end, and a monitor not nudged keeps its
// next scan at the lease's end. Once the renewals stop (a dead scanner),
// another owner takes it over when the last renewal runs out, and the old
// owner's next renewal reports the loss.
func TestRenewMonitorLease(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	a := schedMonitor(t, st, p.ID, "a")
	now := time.Now().Add(time.Second)
	if got, err := st.ClaimDueMonitors(ctx, "one", now, 45*time.Second, 10); err != nil || len(got) != 1 {
		t.Fatalf("claim: %v %v", got, err)
	}
	// Renewed at +30 s and +60 s: at +75 s (past the first lease) it is
	// still held.
	for _, at := range []time.Duration{30 * time.Second, 60 * time.Second} {
		if err := st.RenewMonitorLease(ctx, a.ID, "one", now.Add(at+45*time.Second)); err != nil {
			t.Fatalf("renew at +%s: %v", at, err)
		}
	}
	if got, _ := st.ClaimDueMonitors(ctx, "two", now.Add(75*time.Second), 45*time.Second, 10); len(got) != 0 {
		t.Fatalf("a renewed lease was taken over")
	}
	// A non-owner cannot renew.
	if err := st.RenewMonitorLease(ctx, a.ID, "two", now.Add(time.Hour)); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("renew by a non-owner: %v", err)
	}
	// The renewals stop: due again when the last one runs out (+105 s),
	// not before.
	if got, _ := st.ClaimDueMonitors(ctx, "two", now.Add(104*time.Second), 45*time.Second, 10); len(got) != 0 {
		t.Fatalf("taken over before the renewed lease ran out")
	}
	if got, _ := st.ClaimDueMonitors(ctx, "two", now.Add(106*time.Second), 45*time.Second, 10); len(got) != 1 {
		t.Fatalf("not taken over after the renewed lease ran out")
	}
	if err := st.RenewMonitorLease(ctx, a.ID, "one", now.Add(2*time.Minute)); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("renew after a takeover: %v", err)
	}
	if err := st.FinishMonitorScan(ctx, a.ID, "one", now.Add(time.Hour)); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("finish after a takeover: %v", err)
	}
	// A nudge during a renewed scan survives the renewals: due right
	// after the scan.
	if err := st.NudgeMonitor(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.RenewMonitorLease(ctx, a.ID, "two", now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishMonitorScan(ctx, a.ID, "two", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ClaimDueMonitors(ctx, "one", now.Add(110*time.Second), 45*time.Second, 10); len(got) != 1 {
		t.Fatalf("monitor nudged during a renewed scan not due after it")
	}
}

// A dead holder's leases (an earlier run of a restarted process) are
// released at once, however long they had to run, and their monitors are
// due now; another owner's leases are untouched.
func TestReleaseMonitorLeases(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	dead1, dead2 := schedMonitor(t, st, p.ID, "d1"), schedMonitor(t, st, p.ID, "d2")
	now := time.Now().Add(time.Second)
	got, err := st.ClaimDueMonitors(ctx, "dead", now, time.Hour, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("claim: %v %v", got, err)
	}
	// Created after the dead holder's claim: monitors created in the same
	// millisecond are due at the same instant and claimed in id order,
	// which is random, so "live" made first could be among the two.
	live := schedMonitor(t, st, p.ID, "live")
	if got, err := st.ClaimDueMonitors(ctx, "live", now, time.Hour, 10); err != nil || len(got) != 1 || got[0].ID != live.ID {
		t.Fatalf("claim by live: %v %v", got, err)
	}
	owners, err := st.MonitorLeaseOwners(ctx)
	if err != nil || len(owners) != 2 {
		t.Fatalf("lease owners %v %v, want dead and live", owners, err)
	}
	if n, err := st.ReleaseMonitorLeases(ctx, "dead", now.Add(time.Second)); err != nil || n != 2 {
		t.Fatalf("released %d, %v; want 2", n, err)
	}
	// Due at once (an hour before the lease would have run out), for
	// anyone; the live owner's monitor is still its own.
	got, err = st.ClaimDueMonitors(ctx, "restarted", now.Add(2*time.Second), time.Hour, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("after release, claimed %v %v; want the dead holder's two", got, err)
	}
	for _, m := range got {
		if m.ID != dead1.ID && m.ID != dead2.ID {
			t.Errorf("claimed %s, a live holder's monitor", m.Name)
		}
	}
	if err := st.RenewMonitorLease(ctx, live.ID, "live", now.Add(time.Hour)); err != nil {
		t.Fatalf("live holder lost its lease: %v", err)
	}
	if owners, _ := st.MonitorLeaseOwners(ctx); len(owners) != 2 {
		t.Fatalf("lease owners after release %v, want restarted and live", owners)
	}
}

// Issue 27: a scan's read count and skip reasons, and the source's last
// scan summary, are stored and read back (both backends), and pruning a
// scan takes its counts with it.
func TestScanSummaryStored(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	m := schedMonitor(t, st, p.ID, "m")
	t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
	sum := &ScanSummary{Read: 50, Stored: 0, Skipped: map[string]int{"no date": 40, "no keyword match": 10}}
	rec := SourceRecord{MonitorID: m.ID, Source: "reviews", Status: "degraded", Detail: sum.String(), LastScan: sum, Scans: 1}
	scan := &ScanRecord{MonitorID: m.ID, Source: "reviews", StartedAt: t0, FinishedAt: t0, Fetched: 10, Read: 50, Skipped: sum.Skipped}
	if err := st.SaveSourceResult(ctx, rec, scan, nil); err != nil {
		t.Fatal(err)
	}
	got, err := st.SourceState(ctx, m.ID, "reviews")
	if err != nil || got.LastScan == nil || got.LastScan.String() != "read 50, stored 0, skipped 50: 40 no date, 10 no keyword match" {
		t.Fatalf("source state %+v %v", got.LastScan, err)
	}
	mon, err := st.Monitor(ctx, m.ProjectID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range mon.SourceStatus {
		if s.Source == "reviews" && (s.LastScan == nil || s.LastScan.Read != 50) {
			t.Errorf("monitor status %+v", s)
		}
	}
	scans, err := st.RecentScans(ctx, m.ID, 5)
	if err != nil || len(scans) != 1 || scans[0].Read != 50 || scans[0].Skipped["no date"] != 40 {
		t.Fatalf("scans %+v %v", scans, err)
	}
	if n, err := st.PruneScans(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("prune %d %v", n, err)
	}
	var left int
	if err := st.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM scan_counts`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d scan_counts rows left (%v)", left, err)
	}
}

// A YouTube video stored without counters (videos.list was refused) gets
// them on a later scan: RefreshEngagement replaces the counters of the
// mention the project holds, and ignores ids it does not hold.
func TestRefreshEngagement(t *testing.T) {
	ctx := context.Background()
	st, p := schedFixture(t)
	res, err := st.IngestMentions(ctx, p.ID, 0, []NewMention{{Source: "youtube", ExternalID: "vid1", URL: "https://www.youtube.com/watch?v=vid1",
		Text: "acme review", PublishedAt: time.Now().UTC(), Engagement: map[string]int64{}, Category: "other", Sentiment: "neutral", Classifier: "builtin"}})
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("ingest %+v %v", res, err)
	}
	if err := st.RefreshEngagement(ctx, p.ID, "youtube", map[string]map[string]int64{"vid1": {"viewCount": 1200, "likeCount": 30}, "other": {"viewCount": 1}}); err != nil {
		t.Fatal(err)
	}
	m, err := st.Mention(ctx, p.ID, res.Created[0].ID)
	if err != nil || m.Engagement["viewCount"] != 1200 || m.Engagement["likeCount"] != 30 {
		t.Fatalf("mention %+v %v", m, err)
	}
}
