package collect

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Helpers shared by the collector tests.

// testNowC is "now" for the collector tests: the fixtures are recorded
// around it.
var testNowC = time.Date(2024, 5, 3, 18, 0, 0, 0, time.UTC)

func nowC() time.Time { return testNowC }

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

// cannedServer answers every request with status, header and the fixture
// body; it closes when the test ends.
func cannedServer(t testing.TB, status int, header map[string]string, fixture string) *httptest.Server {
	t.Helper()
	body := readFixture(t, fixture)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }
