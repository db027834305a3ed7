package store

import (
	"errors"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrStorageFull is what IsStorageFull recognises besides the engines'
// own errors; wrap it to report a full disk found elsewhere.
var ErrStorageFull = errors.New("storage full")

// IsStorageFull reports whether err says the database could not write for
// lack of space: SQLite's SQLITE_FULL (a full disk, or the database at
// max_page_count), PostgreSQL's disk_full (53100), or ENOSPC.
func IsStorageFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrStorageFull) || errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53100"
}

// storageState remembers the last write that failed for lack of space,
// until a write commits again: /healthz reports it and the scheduler
// retries a scan soon instead of at its next interval.
type storageState struct {
	fullSince atomic.Int64 // Unix nanoseconds; 0 while writes succeed
	failures  atomic.Int64 // writes refused for lack of space, ever
}

// noteWrite records the outcome of a write: a full-storage error marks the
// store full, a success clears it, any other error says nothing about space.
func (s *Store) noteWrite(err error) {
	switch {
	case err == nil:
		s.storage.fullSince.Store(0)
	case IsStorageFull(err):
		s.storage.failures.Add(1)
		s.storage.fullSince.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// StorageFull reports whether the last write that could tell failed for
// lack of space, and since when.
func (s *Store) StorageFull() (since time.Time, full bool) {
	n := s.storage.fullSince.Load()
	if n == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, n).UTC(), true
}

// StorageFailures counts the writes refused for lack of space since the
// store opened: a caller that reads it before and after some work knows
// whether a write failed so meanwhile, even if a later one succeeded.
func (s *Store) StorageFailures() int64 { return s.storage.failures.Load() }
