package spike_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"earshot/metrics"
	"earshot/spike"
	"earshot/store"
	"earshot/store/storetest"
)

type fixture struct {
	st        *store.Store
	project   string
	monA      string // in the group
	monB      string // in the group too
	group     string
	n         int
	rng       *rand.Rand
	t0        time.Time
	hourStart time.Time // the hour in progress at t0
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	u, err := st.CreateUser(ctx, "s@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, "Spiky", nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateKeywordGroup(ctx, p.ID, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, project: p.ID, group: g.ID, rng: rand.New(rand.NewPCG(3, 4))}
	for _, name := range []string{"A", "B"} {
		m := &store.Monitor{ProjectID: p.ID, Name: name, Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"},
			GroupName: "custom", GroupID: &g.ID, Active: true, ScanIntervalMinutes: 15, BackfillHours: 24}
		if err := st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		if name == "A" {
			f.monA = m.ID
		} else {
			f.monB = m.ID
		}
	}
	// The runner's clock: in the past (collected_at is real time and the
	// incremental count reads what was collected since its last run) and
	// early enough in its hour that t0+15m is the same hour.
	f.t0 = time.Now().UTC().Add(-20 * time.Minute)
	if f.t0.Minute() >= 40 {
		f.t0 = f.t0.Truncate(time.Hour).Add(39 * time.Minute)
	}
	f.hourStart = f.t0.Truncate(time.Hour)
	return f
}

// add stores n mentions published in the hour starting at h, matched by
// monitors, negative ones when neg.
func (f *fixture) add(t *testing.T, h time.Time, n int, neg bool, monitors ...string) {
	t.Helper()
	batch := make([]store.NewMention, n)
	for i := range batch {
		f.n++
		s := "neutral"
		if neg {
			s = "negative"
		}
		batch[i] = store.NewMention{Source: "x", ExternalID: fmt.Sprint("p", f.n), Text: "acme", PublishedAt: h.Add(time.Duration(i%60) * time.Minute),
			MonitorIDs: monitors, IsRelevant: true, Category: "other", Sentiment: s, Urgency: 10 + i%50}
	}
	if _, err := f.st.IngestMentions(context.Background(), f.project, 0, batch); err != nil {
		t.Fatal(err)
	}
}

// history fills days of seasonal traffic before the current hour: both
// monitors, busy afternoons and empty nights, a few negative posts.
func (f *fixture) history(t *testing.T, days int) {
	t.Helper()
	for h := f.hourStart.Add(-time.Duration(days) * 24 * time.Hour); h.Before(f.hourStart); h = h.Add(time.Hour) {
		// The rhythm is anchored to the test's clock, not the wall's: the
		// hour in progress is a quiet morning hour (8) and the burst five
		// hours before it the night's trough (3), whatever the time of day
		// the test runs at. A wall-clock phase put the burst in a busy
		// afternoon when CI ran in the evening, where 25 posts are not a
		// spike for the group.
		hod := float64((h.Hour() - f.hourStart.Hour() + 24 + 8) % 24)
		rate := 0.2 + 12*math.Pow(math.Max(0, math.Sin((hod-3)/24*2*math.Pi-math.Pi/2)*0.5+0.5), 2)
		for _, mon := range []string{f.monA, f.monB} {
			if k := poisson(f.rng, rate); k > 0 {
				f.add(t, h, k, false, mon)
			}
		}
		if k := poisson(f.rng, rate/6); k > 0 {
			f.add(t, h, k, true, f.monA)
		}
	}
}

func poisson(r *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

func (f *fixture) runner(at time.Time) *spike.Runner {
	return &spike.Runner{Store: f.st, Now: func() time.Time { return at }}
}

type key struct{ scope, id, kind, start string }

func keys(sps []*store.Spike) map[key]*store.Spike {
	out := map[key]*store.Spike{}
	for _, sp := range sps {
		id := ""
		if sp.MonitorID != nil {
			id = *sp.MonitorID
		} else {
			id = *sp.KeywordGroupID
		}
		out[key{sp.Scope, id, sp.Kind, sp.BucketStart}] = sp
	}
	return out
}

func spikeEvents(t *testing.T, st *store.Store) []map[string]any {
	t.Helper()
	evs, err := st.UndispatchedEvents(context.Background(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range evs {
		if e.Type != "spike.detected" {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(e.Payload), &body); err != nil {
			t.Fatal(err)
		}
		out = append(out, body)
	}
	return out
}

func TestRunnerFindsBurstsOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.history(t, 10)
	// An outage at 03:00-ish five hours ago would be nothing special in
	// the afternoon; put 25 posts on monitor A in that hour whatever it is.
	burst := f.hourStart.Add(-5 * time.Hour)
	f.add(t, burst, 25, true, f.monA)
	// An old burst (four days ago): recorded on the first run for the
	// chart, but not announced.
	old := f.hourStart.Add(-4 * 24 * time.Hour).Add(-3 * time.Hour)
	f.add(t, old, 40, false, f.monB)

	got, err := f.runner(f.t0).RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k := keys(got)
	bs := store.FormatTime(burst)
	for _, want := range []key{
		{store.ScopeMonitor, f.monA, "volume", bs},
		{store.ScopeMonitor, f.monA, "negative", bs},
		{store.ScopeGroup, f.group, "volume", bs},
		{store.ScopeGroup, f.group, "negative", bs},
		{store.ScopeMonitor, f.monB, "volume", store.FormatTime(old)},
		{store.ScopeGroup, f.group, "volume", store.FormatTime(old)},
	} {
		if k[want] == nil {
			t.Errorf("missing spike %+v", want)
		}
		delete(k, want)
	}
	for extra, sp := range k {
		t.Errorf("unexpected spike %+v: count %d baseline %v score %v", extra, sp.Count, sp.Baseline, sp.Score)
	}
	sp := keys(got)[key{store.ScopeMonitor, f.monA, "negative", bs}]
	if sp != nil {
		if sp.Count < 25 || sp.BucketEnd != store.FormatTime(burst.Add(time.Hour)) || sp.MentionsQuery == nil || sp.MentionsQuery.Sentiment != "negative" ||
			sp.MentionsQuery.MonitorID != f.monA || sp.MentionsPath == nil {
			t.Errorf("spike record: %+v", sp)
		}
		ms, err := f.st.SpikeMentions(ctx, sp, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != sp.Count {
			t.Errorf("%d mentions behind a spike of %d", len(ms), sp.Count)
		}
	}
	// Four announced spikes (the burst), none for the old one.
	evs := spikeEvents(t, f.st)
	if len(evs) != 4 {
		t.Errorf("%d spike.detected events, want 4", len(evs))
	}
	for _, ev := range evs {
		data := ev["data"].(map[string]any)["spike"].(map[string]any)
		if data["bucket_start"] != bs || ev["project_id"] != f.project {
			t.Errorf("event: %v", ev)
		}
	}

	// Idempotent: a second run finds nothing new and fires nothing.
	again, err := f.runner(f.t0.Add(5 * time.Minute)).RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("second run created %d spikes", len(again))
	}
	if n := len(spikeEvents(t, f.st)); n != 4 {
		t.Errorf("%d events after the second run", n)
	}

	// A burst in the hour in progress, collected after the first run, is
	// found through the incremental count.
	f.add(t, f.hourStart, 60, false, f.monB) // twice the busiest hour's group baseline, whatever the hour the test runs in
	now, err := f.runner(f.t0.Add(10 * time.Minute)).RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k = keys(now)
	cs := store.FormatTime(f.hourStart)
	if k[key{store.ScopeMonitor, f.monB, "volume", cs}] == nil || k[key{store.ScopeGroup, f.group, "volume", cs}] == nil || len(k) != 2 {
		t.Errorf("current-hour burst: got %v", k)
	}
	// More posts in the same hour update the record, no second event.
	f.add(t, f.hourStart.Add(time.Minute), 10, false, f.monB)
	if more, err := f.runner(f.t0.Add(15 * time.Minute)).RunOnce(ctx); err != nil || len(more) != 0 {
		t.Fatalf("update run: %v, %d new", err, len(more))
	}
	list, err := f.st.ListSpikes(ctx, store.SpikeFilter{ProjectID: f.project, MonitorID: f.monB, Kind: "volume"}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].BucketStart != cs || list[0].Count < 40 {
		t.Errorf("list after the update: %d spikes, first %+v", len(list), list[0])
	}
	if n := len(spikeEvents(t, f.st)); n != 6 {
		t.Errorf("%d events, want 6", n)
	}
}

func TestRunnerQuietSeasonal(t *testing.T) {
	f := newFixture(t)
	f.history(t, 12)
	got, err := f.runner(f.t0).RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range got {
		t.Errorf("false alarm: %s %s %s count %d baseline %v score %v", sp.Scope, sp.Kind, sp.BucketStart, sp.Count, sp.Baseline, sp.Score)
	}
}

func TestRunnerQuietMonitorThreePosts(t *testing.T) {
	f := newFixture(t)
	// Nothing for days (the monitor is old enough), then three posts.
	f.add(t, f.hourStart.Add(-7*24*time.Hour), 1, false, f.monA)
	f.add(t, f.hourStart.Add(-2*time.Hour), 3, true, f.monA)
	got, err := f.runner(f.t0).RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("three posts alarmed: %d spikes", len(got))
	}
	f.add(t, f.hourStart.Add(-2*time.Hour), 12, true, f.monA)
	got, err = f.runner(f.t0.Add(time.Minute)).RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(keys(got)) != 4 { // volume and negative, monitor and group
		t.Fatalf("fifteen posts on a silent monitor: %d spikes", len(got))
	}
}

// TestRunLoopAndMetrics: Run detects on its first tick, counts what it
// found in /metrics, and returns when its context ends.
func TestRunLoopAndMetrics(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.hourStart.Add(-7*24*time.Hour), 1, false, f.monA)
	f.add(t, f.hourStart.Add(-time.Hour), 12, false, f.monA)
	reg := metrics.New()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&spike.Runner{Store: f.st, Interval: time.Hour, Metrics: reg}).Run(ctx) }()
	want := `earshot_spikes_detected_total{kind="volume",scope="monitor"} 1`
	deadline := time.Now().Add(3 * time.Minute) // ends at the first tick's metrics
	for {
		var b strings.Builder
		if err := reg.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), want) && strings.Contains(b.String(), "earshot_spike_run_seconds_count 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %q:\n%s", want, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("Run did not return")
	}
}
