package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while the demo writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Black box: `earshot demo` on a free port, asked over HTTP with the API
// key it prints, shows Bluesky and Mastodon mentions (collected by the real
// collectors from the replay server) with their platform's URL and
// engagement, and both sources ok on the brand monitor.
func TestDemoShowsBlueskyAndMastodon(t *testing.T) {
	addr := freeAddr(t)
	env := map[string]string{"EARSHOT_DATA": t.TempDir(), "EARSHOT_LOG_LEVEL": "error"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var out, errb lockedBuffer
	go func() {
		done <- run(ctx, []string{"demo", "--addr", addr}, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	}()
	defer func() {
		cancel()
		waitDone(t, "demo", done)
	}()
	reKey := regexp.MustCompile(`API key\s+(esk_\S+)`)
	var key string
	waitUntil(t, "the demo to print its API key", done, func() bool {
		if m := reKey.FindStringSubmatch(out.String()); m != nil {
			key = m[1]
		}
		return key != ""
	})
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	type mention struct {
		Source     string           `json:"source"`
		URL        string           `json:"url"`
		Author     string           `json:"author_handle"`
		Engagement map[string]int64 `json:"engagement"`
	}
	want := map[string]struct {
		url string
		eng []string
	}{
		"bluesky":  {"https://bsky.app/profile/", []string{"likes", "reposts", "replies", "quotes"}},
		"mastodon": {"https://", []string{"favourites", "reblogs", "replies"}},
	}
	for src, w := range want {
		var page struct {
			Data struct {
				Items []mention `json:"items"`
			} `json:"data"`
		}
		deadline := time.Now().Add(readyBound)
		// Scans store as they go: wait for both monitors' scans.
		for len(page.Data.Items) < 5 && time.Now().Before(deadline) {
			get("/api/v1/mentions?source="+src+"&limit=100", &page)
			if len(page.Data.Items) < 5 {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if len(page.Data.Items) < 5 {
			t.Fatalf("%s: %d mentions in the demo", src, len(page.Data.Items))
		}
		for _, m := range page.Data.Items {
			if m.Source != src || !strings.HasPrefix(m.URL, w.url) || m.Author == "" {
				t.Errorf("%s mention %+v", src, m)
			}
			for _, k := range w.eng {
				if _, ok := m.Engagement[k]; !ok {
					t.Errorf("%s mention %s has no %s: %v", src, m.URL, k, m.Engagement)
				}
			}
		}
	}
	// Both sources ok on the brand monitor (polled: a status is saved just
	// after its scan's mentions).
	var got []string
	for deadline := time.Now().Add(readyBound); ; {
		var mons struct {
			Data struct {
				Monitors []struct {
					Name         string `json:"name"`
					SourceStatus []struct {
						Source, Status string
					} `json:"source_status"`
				} `json:"monitors"`
			} `json:"data"`
		}
		get("/api/v1/monitors", &mons)
		got = nil
		for _, m := range mons.Data.Monitors {
			for _, s := range m.SourceStatus {
				if m.Name == "Acme" && (s.Source == "bluesky" || s.Source == "mastodon") {
					got = append(got, s.Source+"="+s.Status)
				}
			}
		}
		if strings.Join(got, ",") == "bluesky=ok,mastodon=ok" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if strings.Join(got, ",") != "bluesky=ok,mastodon=ok" {
		t.Errorf("Acme monitor source_status for bluesky/mastodon: %v", got)
	}
}
