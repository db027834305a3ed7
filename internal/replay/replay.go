// Package replay is the demo replay server: `earshot demo` (and serve with
// EARSHOT_REPLAY=1, and the collector tests) point every collector at it
// (see collect.DemoConfig), so the real collector code reads recorded platform
// responses with no network and no credentials. The recordings live in
// recorded/<source>/, in each platform's own response shape; the handlers
// answer the real API paths with the real parameters applied, and shift
// every timestamp so the newest post of each source is minutes old.
package replay

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed recorded
var demoFiles embed.FS

// demoNewestAge is how long ago the newest demo post appears to be.
const demoNewestAge = 10 * time.Minute

// NewHandler serves the recorded demo responses under
// /<source>/..., one handler per source, with every timestamp shifted so the
// newest post of each source is about ten minutes old.
func NewHandler() http.Handler {
	handlers := sourceHandlers()
	mux := http.NewServeMux()
	for name, h := range handlers {
		mux.Handle("/"+name+"/", http.StripPrefix("/"+name, h))
	}
	return mux
}

// Sources lists the sources the replay server answers for, sorted.
func Sources() []string {
	return slices.Sorted(maps.Keys(sourceHandlers()))
}

// sourceHandlers returns one handler per source, keyed by source name.
func sourceHandlers() map[string]http.Handler {
	fsys, err := fs.Sub(demoFiles, "recorded")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	handlers := feedHandlers(fsys)
	for name, h := range searchHandlers(fsys) { // hn, reddit, youtube, x: search_apis.go
		handlers[name] = h
	}
	for name, h := range devHandlers(fsys) { // github, stackoverflow, discourse, devto: devsources.go
		handlers[name] = h
	}
	for name, h := range socialHandlers(func(dir string) *demoShift { return newDemoShift(fsys, dir) }) { // bluesky, mastodon
		handlers[name] = h
	}
	return handlers
}

// FeedURLs are the feed_urls of the demo monitors: feeds on the replay
// server that the news collector reads.
func FeedURLs(replayURL string) []string {
	base := strings.TrimRight(replayURL, "/") + "/news/feeds/"
	return []string{base + "acme-blog.xml", base + "pm-weekly.atom"}
}

// ReviewURLs are the review_urls of the demo monitors: a JSON-LD review
// page on the replay server, plus an App Store app and a Trustpilot page
// whose APIs collect.DemoConfig points at the replay server.
func ReviewURLs(replayURL string) []string {
	return []string{
		strings.TrimRight(replayURL, "/") + "/reviews/pages/acme-projects-reviews.html",
		"https://apps.apple.com/us/app/acme-projects/id1234567890",
		"https://www.trustpilot.com/review/acme.example",
	}
}

// feedHandlers returns the replay handlers of threads, linkedin, news and
// reviews.
func feedHandlers(fsys fs.FS) map[string]http.Handler {
	return map[string]http.Handler{
		"threads":  demoThreads(newDemoShift(fsys, "threads")),
		"linkedin": demoLinkedIn(newDemoShift(fsys, "linkedin")),
		"news":     demoNews(newDemoShift(fsys, "news")),
		"reviews":  demoReviews(newDemoShift(fsys, "reviews")),
	}
}

func demoThreads(d *demoShift) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1.0/keyword_search" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("access_token") == "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"An access token is required to request this resource.","type":"OAuthException","code":104}}`)
			return
		}
		name := "keyword_search.json"
		if after := r.URL.Query().Get("after"); after != "" {
			name = "keyword_search_" + after + ".json"
			if !d.exists(name) {
				// Past the last recorded page: Meta answers the last
				// page's after cursor with an empty page.
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"data":[]}`)
				return
			}
		}
		d.serve(w, r, name, "application/json")
	})
}

func demoLinkedIn(d *demoShift) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/rest/posts":
			if r.URL.Query().Get("start") != "" && r.URL.Query().Get("start") != "0" {
				d.serve(w, r, "empty.json", "application/json")
				return
			}
			d.serve(w, r, "posts.json", "application/json")
		case strings.HasPrefix(p, "/rest/socialActions/") && strings.HasSuffix(p, "/comments"):
			urn := strings.TrimSuffix(strings.TrimPrefix(p, "/rest/socialActions/"), "/comments")
			name := "comments_" + urn[strings.LastIndex(urn, ":")+1:] + ".json"
			if !d.exists(name) || (r.URL.Query().Get("start") != "" && r.URL.Query().Get("start") != "0") {
				name = "empty.json"
			}
			d.serve(w, r, name, "application/json")
		default:
			http.NotFound(w, r)
		}
	})
}

func demoNews(d *demoShift) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/rss/search":
			d.serve(w, r, "google_news.xml", "application/xml; charset=utf-8")
		case p == "/api/v2/doc/doc":
			d.serve(w, r, "gdelt.json", "application/json")
		case p == "/feeds/acme-blog.xml":
			d.serve(w, r, "acme-blog.xml", "application/rss+xml")
		case p == "/feeds/pm-weekly.atom":
			d.serve(w, r, "pm-weekly.atom", "application/atom+xml")
		default:
			http.NotFound(w, r)
		}
	})
}

var demoAppStorePath = regexp.MustCompile(`^/[a-z]{2}/rss/customerreviews/(?:page=(\d+)/)?id=\d+/`)

func demoReviews(d *demoShift) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if m := demoAppStorePath.FindStringSubmatch(strings.ToLower(p)); m != nil {
			if m[1] != "" && m[1] != "1" {
				d.serve(w, r, "appstore_empty.json", "application/json")
				return
			}
			d.serve(w, r, "appstore.json", "application/json")
			return
		}
		switch {
		case strings.HasPrefix(p, "/pages/"):
			name := path.Base(p)
			if !d.exists(name) {
				http.NotFound(w, r)
				return
			}
			d.serve(w, r, name, "text/html; charset=utf-8")
		case p == "/v1/business-units/find":
			d.serve(w, r, "trustpilot_find.json", "application/json")
		case strings.HasPrefix(p, "/v1/business-units/") && strings.HasSuffix(p, "/reviews"):
			if pg := r.URL.Query().Get("page"); pg != "" && pg != "1" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"reviews":[],"links":[]}`)
				return
			}
			d.serve(w, r, "trustpilot_reviews.json", "application/json")
		default:
			http.NotFound(w, r)
		}
	})
}

// --- timestamp shifting ---

// demoShift serves one source's recorded files with every timestamp moved
// forward by the same amount, computed once from the newest timestamp in
// the source's files, so relative order and gaps are kept.
type demoShift struct {
	fsys  fs.FS
	dir   string
	delta time.Duration

	mu    sync.Mutex
	cache map[string][]byte
}

func newDemoShift(fsys fs.FS, dir string) *demoShift {
	d := &demoShift{fsys: fsys, dir: dir, cache: map[string][]byte{}}
	var newest time.Time
	_ = fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		for _, t := range demoTimestamps(b) {
			if t.After(newest) {
				newest = t
			}
		}
		return nil
	})
	if !newest.IsZero() {
		d.delta = time.Now().Add(-demoNewestAge).Sub(newest).Truncate(time.Second)
	}
	return d
}

func (d *demoShift) exists(name string) bool {
	_, err := fs.Stat(d.fsys, path.Join(d.dir, name))
	return err == nil
}

func (d *demoShift) serve(w http.ResponseWriter, r *http.Request, name, contentType string) {
	body, err := d.file(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(body)
}

// file returns the shifted file, computed once.
func (d *demoShift) file(name string) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.cache[name]; ok {
		return b, nil
	}
	b, err := fs.ReadFile(d.fsys, path.Join(d.dir, name))
	if err != nil {
		return nil, err
	}
	b = shiftTimestamps(b, d.delta)
	d.cache[name] = b
	return b, nil
}

// The timestamp shapes found in recorded responses, each rewritten in its
// own layout.
var (
	reTSISO   = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})`)
	reTSRFC   = regexp.MustCompile(`\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} (?:GMT|[+-]\d{4})`)
	reTSGDELT = regexp.MustCompile(`\b\d{8}T\d{6}Z\b`)
	reTSMilli = regexp.MustCompile(`"(?:createdAt|publishedAt|lastModifiedAt|time)"\s*:\s*(1\d{12})\b`)
	reTSDate  = regexp.MustCompile(`"(?:datePublished|dateCreated|uploadDate)"\s*:\s*"(\d{4}-\d{2}-\d{2})"`)
	reTSUnix  = regexp.MustCompile(`"(?:created_at_i|created_utc|created|creation_date|last_activity_date)"\s*:\s*(1\d{9})(\.\d+)?\b`)
)

// demoTimestamps returns every timestamp shiftTimestamps would move.
func demoTimestamps(b []byte) []time.Time {
	var out []time.Time
	_ = forEachTimestamp(b, func(t time.Time) time.Time { out = append(out, t); return t })
	return out
}

func shiftTimestamps(b []byte, delta time.Duration) []byte {
	if delta == 0 {
		return b
	}
	return forEachTimestamp(b, func(t time.Time) time.Time { return t.Add(delta) })
}

// forEachTimestamp rewrites every recognised timestamp in b with fn's
// result, keeping each one's layout and zone offset.
func forEachTimestamp(b []byte, fn func(time.Time) time.Time) []byte {
	b = reTSISO.ReplaceAllFunc(b, func(m []byte) []byte {
		s := string(m)
		layout := time.RFC3339
		switch {
		case strings.HasSuffix(s, "Z"):
		case s[len(s)-3] == ':':
		default:
			layout = "2006-01-02T15:04:05-0700"
		}
		if i := strings.IndexByte(s, '.'); i > 0 {
			end := i + 1
			for end < len(s) && s[end] >= '0' && s[end] <= '9' {
				end++
			}
			frac := "." + strings.Repeat("0", end-i-1)
			layout = strings.Replace(layout, "05", "05"+frac, 1)
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			return m
		}
		return []byte(fn(t).In(t.Location()).Format(layout))
	})
	b = reTSRFC.ReplaceAllFunc(b, func(m []byte) []byte {
		layout := time.RFC1123Z
		if bytes.HasSuffix(m, []byte("GMT")) {
			layout = time.RFC1123
		}
		t, err := time.Parse(layout, normaliseDay(string(m)))
		if err != nil {
			return m
		}
		return []byte(fn(t).In(t.Location()).Format(layout))
	})
	b = reTSGDELT.ReplaceAllFunc(b, func(m []byte) []byte {
		t, err := time.Parse("20060102T150405Z", string(m))
		if err != nil {
			return m
		}
		return []byte(fn(t).UTC().Format("20060102T150405Z"))
	})
	b = replaceGroup(reTSMilli, b, func(v string) string {
		ms, _ := strconv.ParseInt(v, 10, 64)
		return strconv.FormatInt(fn(time.UnixMilli(ms).UTC()).UnixMilli(), 10)
	})
	b = replaceGroup(reTSDate, b, func(v string) string {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return v
		}
		return fn(t).UTC().Format("2006-01-02")
	})
	b = replaceGroup(reTSUnix, b, func(v string) string {
		s, _ := strconv.ParseInt(v, 10, 64)
		return strconv.FormatInt(fn(time.Unix(s, 0).UTC()).Unix(), 10)
	})
	return b
}

// normaliseDay pads a one-digit day so time.RFC1123 parses it.
func normaliseDay(s string) string {
	if len(s) > 6 && s[6] == ' ' {
		return s[:5] + "0" + s[5:]
	}
	return s
}

// replaceGroup rewrites the first capture group of every match of re.
func replaceGroup(re *regexp.Regexp, b []byte, fn func(string) string) []byte {
	var out bytes.Buffer
	last := 0
	for _, m := range re.FindAllSubmatchIndex(b, -1) {
		out.Write(b[last:m[2]])
		out.WriteString(fn(string(b[m[2]:m[3]])))
		last = m[3]
	}
	out.Write(b[last:])
	return out.Bytes()
}

// LinkedInOrganization is the organization page the LinkedIn demo
// fixtures belong to; demo monitors list it in watch_accounts.
const LinkedInOrganization = "urn:li:organization:90210001"
