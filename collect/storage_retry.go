package collect

import (
	"sync"
	"time"
)

// A scan whose posts could not be stored for lack of space (a full disk)
// is retried soon rather than at the monitor's next interval: its posts
// were not stored and its sources kept their old State, so the retry
// fetches them again. The wait doubles from storageRetryMin while the
// scans keep failing, up to storageRetryMax, and is never later than the
// normal next scan.
const (
	storageRetryMin = 30 * time.Second
	storageRetryMax = 5 * time.Minute
)

// storageRetries counts, per monitor, the consecutive scans that met a
// full disk.
type storageRetries struct {
	mu sync.Mutex
	n  map[string]int
}

// next returns when the monitor's next scan is due: normal when the scan
// stored what it had to (failed false), else the backoff from now.
func (r *storageRetries) next(monitorID string, failed bool, now, normal time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !failed {
		delete(r.n, monitorID)
		return normal
	}
	if r.n == nil {
		r.n = map[string]int{}
	}
	wait := storageRetryMin << min(r.n[monitorID], 10)
	r.n[monitorID]++
	if wait > storageRetryMax {
		wait = storageRetryMax
	}
	if at := now.Add(wait); at.Before(normal) {
		return at
	}
	return normal
}
