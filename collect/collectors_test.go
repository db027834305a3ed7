package collect

import (
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Helpers shared by the collector tests.

// readFixture reads collect/testdata/<rel>, a recorded platform response.
func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// requestLog records the requests a fake platform saw.
type requestLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
}

func (l *requestLog) all() []*http.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*http.Request(nil), l.reqs...)
}

func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }
