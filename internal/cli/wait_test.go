package cli

import (
	"bufio"
	"io"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"
)

// readyBound is how long a test waits for a process to be ready or for
// work to finish. Waits end as soon as the condition holds, so the bound
// costs nothing on a fast machine; it is generous because the test
// machine may be a busy 2-core box running -race builds in parallel
// (issue 23: a 10 s wait for the demo's key failed there).
const readyBound = 5 * time.Minute

// waitUntil polls cond every 25 ms until it holds, or fails the test
// naming what it waited for after readyBound. done, when not nil, is the
// exit code channel (capacity 1) of the process under test: its exit ends
// the wait at once (the code is put back for the test's own cleanup), so
// a dead process is reported without waiting for the bound.
func waitUntil(t testing.TB, what string, done chan int, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(readyBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", readyBound, what)
		}
		select {
		case code := <-done:
			done <- code
			if cond() {
				return
			}
			t.Fatalf("the process exited (%d) before %s", code, what)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// waitDone waits for a process's exit code (after it was told to stop).
func waitDone(t testing.TB, what string, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(readyBound):
		t.Errorf("%s did not stop within %s", what, readyBound)
		return -1
	}
}

// lineWatcher collects a child process's output lines as they come, so a
// test waits on a log line instead of a fixed delay.
type lineWatcher struct {
	mu    sync.Mutex
	lines []string
	eof   chan struct{}
}

func watchLines(r io.Reader) *lineWatcher {
	w := &lineWatcher{eof: make(chan struct{})}
	go func() {
		defer close(w.eof)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
		}
	}()
	return w
}

// find returns the submatches of the first line matching re (nil if none).
func (w *lineWatcher) find(re *regexp.Regexp) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.lines {
		if m := re.FindStringSubmatch(l); m != nil {
			return m
		}
	}
	return nil
}

// wait returns the first line matching re, waiting up to readyBound; the
// output ending first (the process exited) fails the test at once.
func (w *lineWatcher) wait(t testing.TB, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(readyBound)
	for {
		if m := w.find(re); m != nil {
			return m
		}
		select {
		case <-w.eof:
			if m := w.find(re); m != nil {
				return m
			}
			t.Fatalf("output ended without a line matching %s:\n%s", re, w.String())
		case <-deadline:
			t.Fatalf("no line matching %s within %s:\n%s", re, readyBound, w.String())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := ""
	for _, l := range w.lines {
		out += l + "\n"
	}
	return out
}

// healthy reports whether base answers /healthz with 200.
func healthy(base string) bool {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
