package collect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

// deadPid is the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestOwnerDead(t *testing.T) {
	self := defaultOwner()
	h := parseOwner(self)
	if !h.ok || h.pid != os.Getpid() || h.start != processStart {
		t.Fatalf("own name %q parsed as %+v", self, h)
	}
	host := h.host
	dead := deadPid(t)
	for _, c := range []struct {
		owner string
		dead  bool
	}{
		{self, false},
		{defaultOwner(), false}, // another scheduler of this process
		{fmt.Sprintf("%s:%d:%s:abcd", host, os.Getpid(), "1234"), true}, // an earlier run that had this pid
		{fmt.Sprintf("%s:%d:abcd", host, os.Getpid()), true},            // the same, named by an older release
		{fmt.Sprintf("%s:%d:%s:abcd", host, dead, processStart), true},  // a process of this host that is gone
		{fmt.Sprintf("%s:%d:abcd", host, dead), true},                   // the same, older name
		{fmt.Sprintf("%s:%d:1234:abcd", host, os.Getppid()), false},     // a live process of this host
		{fmt.Sprintf("other-%s:%d:1234:abcd", host, dead), false},       // another host: unknown
		{"a", false}, {"scheduler-b", false}, {"x:y:z", false}, {"", false}, // configured names: unknown
	} {
		if got := ownerDead(c.owner, self); got != c.dead {
			t.Errorf("ownerDead(%q) = %v, want %v", c.owner, got, c.dead)
		}
	}
}

// A restarted process reclaims the leases its earlier run held at once:
// the monitor is scanned right away, not when the hour-long lease ends.
// Another live holder's lease is left alone.
func TestSchedulerReclaimsDeadHoldersLeasesAtStart(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f.monitor(t, f.project.ID, nil)
	f.monitor(t, f.project.ID, nil)
	host, _ := os.Hostname()
	earlier := fmt.Sprintf("%s:%d:%s:dead", host, deadPid(t), processStart)
	live := fmt.Sprintf("%s:%d:1234:beef", host, os.Getppid())
	now := time.Now()
	// Which monitor each holder claims is the store's choice (both are
	// due at once); the test follows it.
	got, err := f.st.ClaimDueMonitors(ctx, earlier, now, time.Hour, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v %v", got, err)
	}
	mine := got[0]
	if got, err = f.st.ClaimDueMonitors(ctx, live, now, time.Hour, 1); err != nil || len(got) != 1 {
		t.Fatalf("claim: %v %v", got, err)
	}
	theirs := got[0]
	scanned := make(chan string, 10)
	hn := &fakeCollector{source: "hn", fetch: func(_ context.Context, q Query) (Batch, error) {
		scanned <- q.MonitorID
		return Batch{}, nil
	}}
	s := NewScheduler(f.st, registryOf(hn), nil, SchedulerConfig{}, quietLog(), nil)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	select {
	case id := <-scanned:
		if id != mine.ID {
			t.Fatalf("scanned %s, want the dead holder's monitor", id)
		}
	case <-ctx.Done():
		t.Fatal("the dead holder's monitor was not scanned")
	}
	cancel()
	<-done
	if owner, _, err := f.st.MonitorLease(context.Background(), theirs.ID); err != nil || owner != live {
		t.Errorf("live holder's lease: %q %v", owner, err)
	}
}

// update_monitor on a monitor a dead process holds makes it due now.
func TestMonitorChangedReleasesDeadHoldersLease(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.monitor(t, f.project.ID, nil)
	host, _ := os.Hostname()
	gone := fmt.Sprintf("%s:%d:1234:dead", host, deadPid(t))
	if got, err := f.st.ClaimDueMonitors(ctx, gone, time.Now(), time.Hour, 1); err != nil || len(got) != 1 {
		t.Fatalf("claim: %v %v", got, err)
	}
	s := NewScheduler(f.st, registryOf(&fakeCollector{source: "hn"}), nil, SchedulerConfig{}, quietLog(), nil)
	s.MonitorChanged(f.project.ID, m.ID)
	if got, err := f.st.ClaimDueMonitors(ctx, "next", time.Now().Add(time.Second), time.Minute, 10); err != nil || len(got) != 1 {
		t.Fatalf("after update_monitor the dead holder's monitor is not due: %v %v", got, err)
	}
}

// A running scan renews its lease (the heartbeat), so it outlives its
// first lease; when another scheduler takes the monitor over, the scan
// stops and stores nothing of what it fetched, and the new holder keeps
// the monitor.
func TestScanHeartbeatRenewsAndStopsOnLoss(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m := f.monitor(t, f.project.ID, nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	hn := &fakeCollector{source: "hn", fetch: func(fctx context.Context, q Query) (Batch, error) {
		close(started)
		<-fctx.Done()
		stopped <- context.Cause(fctx)
		// What a collector got before it noticed: must not be stored.
		return Batch{Posts: []Post{hnPost("1", "Acme late post", time.Now().Add(-time.Minute))}}, nil
	}}
	const lease = 3 * time.Second
	s := NewScheduler(f.st, registryOf(hn), nil, SchedulerConfig{Owner: "scanner", Lease: lease}, quietLog(), nil)
	done := make(chan struct{})
	go func() { defer close(done); s.ScanDue(ctx) }()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("scan did not start")
	}
	_, first, err := f.st.MonitorLease(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Renewed: the lease moves past its first end.
	for {
		owner, until, err := f.st.MonitorLease(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if owner != "scanner" {
			t.Fatalf("lease held by %q during the scan", owner)
		}
		if until.After(first) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("lease never renewed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Taken over (as after a lease that ran out while the scanner was
	// cut off from the database).
	if _, err := f.st.ReleaseMonitorLeases(ctx, "scanner", time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err := f.st.ClaimDueMonitors(ctx, "thief", time.Now().Add(time.Second), time.Hour, 1); err != nil || len(got) != 1 {
		t.Fatalf("takeover: %v %v", got, err)
	}
	select {
	case cause := <-stopped:
		if !errors.Is(cause, store.ErrLeaseLost) {
			t.Errorf("scan stopped by %v, want the lost lease", cause)
		}
	case <-ctx.Done():
		t.Fatal("scan went on after its lease was taken over")
	}
	<-done
	if ms, err := f.st.ListMentions(ctx, store.MentionFilter{ProjectID: f.project.ID}, nil, 10); err != nil || len(ms) != 0 {
		t.Errorf("the stopped scan stored %d mentions (%v)", len(ms), err)
	}
	if owner, _, err := f.st.MonitorLease(ctx, m.ID); err != nil || owner != "thief" {
		t.Errorf("after the stopped scan the lease is %q (%v), want the new holder's", owner, err)
	}
	if rs, _ := f.st.RecentScans(ctx, m.ID, 10); len(rs) != 0 {
		t.Errorf("the stopped scan recorded %d scans", len(rs))
	}
}

// A scan whose renewals keep failing (its process cut off from the
// database) stops before its lease can run out, rather than go on while
// another scheduler may take the monitor.
func TestScanStopsWhenRenewalsFail(t *testing.T) {
	sts := storetest.OpenShared(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, err := sts[0].CreateUser(ctx, "owner@example.com", "x", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	p, err := sts[0].CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: sts[0], project: p, userID: u.ID}
	f.monitor(t, p.ID, nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	hn := &fakeCollector{source: "hn", fetch: func(fctx context.Context, q Query) (Batch, error) {
		close(started)
		<-fctx.Done()
		stopped <- context.Cause(fctx)
		return Batch{}, nil
	}}
	s := NewScheduler(sts[1], registryOf(hn), nil, SchedulerConfig{Owner: "scanner", Lease: 3 * time.Second}, quietLog(), nil)
	done := make(chan struct{})
	go func() { defer close(done); s.ScanDue(ctx) }()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("scan did not start")
	}
	sts[1].Close() // every renewal fails from now on
	select {
	case cause := <-stopped:
		if !errors.Is(cause, store.ErrLeaseLost) {
			t.Errorf("scan stopped by %v, want the lease given up", cause)
		}
	case <-ctx.Done():
		t.Fatal("scan went on while its lease could not be renewed")
	}
	<-done
}
