package deliver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestFanOutBenchmark records 1,000 events/s for a while, fanned out to 10
// webhooks on loopback, and reports delivery throughput, the lag from event
// recorded to delivery acknowledged, and how long RecordEvent (ingestion)
// takes with and without the worker delivering. Run it with
//
//	EARSHOT_BENCH_FANOUT=1 go test -run FanOut -v ./deliver/
//
// EARSHOT_BENCH_SECONDS (default 20), EARSHOT_BENCH_RATE (events/s, 1000)
// and EARSHOT_BENCH_WEBHOOKS (10) change the load.
func TestFanOutBenchmark(t *testing.T) {
	if os.Getenv("EARSHOT_BENCH_FANOUT") == "" {
		t.Skip("set EARSHOT_BENCH_FANOUT=1 to run the fan-out benchmark")
	}
	seconds := envInt("EARSHOT_BENCH_SECONDS", 20)
	rate := envInt("EARSHOT_BENCH_RATE", 1000)
	nHooks := envInt("EARSHOT_BENCH_WEBHOOKS", 10)

	st, pid := testStore(t)
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
	}))
	defer srv.Close()
	for i := range nHooks {
		addWebhook(t, st, pid, fmt.Sprintf("%s/hook/%d", srv.URL, i))
	}
	text := strings.Repeat("Acme checkout keeps failing with a 502 and support is silent. ", 12)
	record := func(i int) time.Duration {
		start := time.Now()
		mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i), "source": "reddit", "text": text, "urgency": 40,
			"url": "https://www.reddit.com/r/x/comments/" + strconv.Itoa(i), "author_handle": "u/someone", "sentiment": "negative"})
		return time.Since(start)
	}
	// produce records events at rate per second for d, catching up when a
	// slow call put it behind, so the offered load does not shrink.
	produce := func(d time.Duration, first int) (durations []time.Duration, n int) {
		start := time.Now()
		for {
			el := time.Since(start)
			if el >= d {
				return durations, n
			}
			if due := int(el.Seconds() * float64(rate)); n >= due {
				time.Sleep(time.Millisecond)
				continue
			}
			durations = append(durations, record(first+n))
			n++
		}
	}

	// Baseline: ingestion alone.
	base, nBase := produce(3*time.Second, 0)
	// Those events are delivered too; let the worker drain them first.
	var mu sync.Mutex
	var lags []time.Duration
	_, stop := startWorker(t, st, WorkerConfig{Schedule: DefaultSchedule, Timeout: 15 * time.Second, PollInterval: 100 * time.Millisecond}, func(w *Worker) {
		w.onAck = func(l time.Duration) {
			mu.Lock()
			lags = append(lags, l)
			mu.Unlock()
		}
	})
	drain := func(want int64) time.Duration {
		start := time.Now()
		waitFor(t, 5*time.Minute, "drain", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return int64(len(lags)) >= want
		})
		return time.Since(start)
	}
	drain(int64(nBase * nHooks))
	mu.Lock()
	lags = lags[:0]
	mu.Unlock()
	receivedBefore := received.Load()

	start, cpu0 := time.Now(), cpuTime()
	loaded, n := produce(time.Duration(seconds)*time.Second, nBase)
	produced := time.Since(start)
	tail := drain(int64(n * nHooks))
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	stop()

	mu.Lock()
	defer mu.Unlock()
	acks := len(lags)
	t.Logf("load: %d events in %v (%.0f events/s) to %d webhooks = %d deliveries", n, produced.Round(time.Millisecond), float64(n)/produced.Seconds(), nHooks, n*nHooks)
	t.Logf("acknowledged: %d deliveries in %v (%.0f deliveries/s); backlog drained %v after the last event; receiver saw %d requests",
		acks, elapsed.Round(time.Millisecond), float64(acks)/elapsed.Seconds(), tail.Round(time.Millisecond), received.Load()-receivedBefore)
	t.Logf("lag event recorded -> delivery acknowledged: %s", quantiles(lags))
	t.Logf("process CPU while loaded: %v of %v wall (%.0f µs per delivery, receivers and producer included)",
		cpu.Round(time.Millisecond), elapsed.Round(time.Millisecond), float64(cpu.Microseconds())/float64(max(acks, 1)))
	t.Logf("RecordEvent alone:            %s", quantiles(base))
	t.Logf("RecordEvent while delivering: %s", quantiles(loaded))
	if acks < n*nHooks {
		t.Errorf("%d of %d deliveries acknowledged", acks, n*nHooks)
	}
}

// cpuTime is the CPU time this process used so far: on a shared machine
// it says more about cost than wall-clock rates do.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(int(p*float64(len(s))), len(s)-1)] }
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v max=%v", len(s), r(q(0.50)), r(q(0.90)), r(q(0.99)), r(s[len(s)-1]))
}
