// Package collect owns everything between a platform's API and a stored
// mention: one client per source, keyword matching, and the scan scheduler.
package collect

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Post is one public post as a collector normalised it.
type Post struct {
	Source          string           // one of vocab.Sources
	ExternalID      string           // the platform's own id; unique per source
	URL             string           // link to the post
	AuthorHandle    string           // without a leading @; "" when unknown or deleted
	AuthorID        string           // the account's stable id where it differs from the handle (a Bluesky DID); matched against watch_accounts too, not stored
	AuthorFollowers int64            // 0 when the platform does not say
	Text            string           // plain text: entities unescaped; HTML stripped only from fields that are HTML
	PublishedAt     time.Time        // UTC
	Engagement      map[string]int64 // platform counters; reddit: upvotes, comments
	// Links are pages the post links to that URL and Text do not show (an
	// HN or Reddit link submission's target); stories group by them.
	Links []string
	// Kind is what the post is on its platform when it has several kinds
	// (issue, pull_request, question, answer, topic, article); Tags are
	// its labels or tags there. Classifiers get both (a GitHub issue
	// labelled bug is a bug report).
	Kind string
	Tags []string
	// Note is a caveat the scan summary counts, e.g. PublishedAt is not
	// the post's own date (the platform gave none: "dated by the feed's
	// update time"), or its counters are missing.
	Note string
}

// Query is what one scan of one monitor asks a collector for.
type Query struct {
	MonitorID       string
	Keywords        []string
	ExcludeKeywords []string
	QueryMode       string // any, all, phrase
	WatchAccounts   []string
	FeedURLs        []string
	ReviewURLs      []string
	// Since is the oldest publication time wanted: now-backfill on the first
	// scan; afterwards the last successful scan minus an overlap, for posts
	// the platform indexed late. Collectors bound their requests by Since,
	// not by the newest post they saw before (that would skip a post
	// published earlier but indexed after the last scan); the pipeline
	// dedupes what the overlap fetches again.
	Since time.Time
	// State is the opaque string the collector returned in the previous
	// Batch for this monitor ("" on the first scan), e.g. X's since_id.
	State string
}

// Batch is the result of one Fetch.
type Batch struct {
	Posts []Post
	State string // persisted and handed back in the next Query
	// Skipped counts the posts the platform returned that the collector
	// could not turn into a Post, per reason ("no date", "no id"): the
	// scan's summary shows them, so nothing is dropped silently.
	Skipped Skips
	// Refresh holds new counters of posts an earlier scan returned
	// without them (YouTube videos stored when videos.list was refused):
	// only ExternalID and Engagement are read; the store updates the
	// mentions it holds.
	Refresh []Post
}

// Skips counts skipped posts per reason.
type Skips map[string]int

// Add counts n posts skipped for reason.
func (s *Skips) Add(reason string, n int) {
	if n <= 0 {
		return
	}
	if *s == nil {
		*s = Skips{}
	}
	(*s)[reason] += n
}

// Total is the number of posts skipped for any reason.
func (s Skips) Total() int {
	n := 0
	for _, c := range s {
		n += c
	}
	return n
}

// Collector is a client of one platform's API.
type Collector interface {
	Source() string
	// Configured reports whether the collector can run with the settings it
	// was given; when it cannot, missing names the setting (e.g.
	// "EARSHOT_X_BEARER_TOKEN").
	Configured() (ok bool, missing string)
	// Fetch returns posts published at or after q.Since that may match q.
	// A malformed response is an error, never an empty batch.
	Fetch(ctx context.Context, q Query) (Batch, error)
}

// StatusNoter is a collector whose working source status carries a note
// the user should know (e.g. Bluesky without credentials is live only); the
// scheduler shows it as the detail of an ok status.
type StatusNoter interface {
	StatusNote() string
}

// A failed fetch stores nothing. Fetch returns an empty Batch with its
// error, and the scheduler drops any posts that come with an error, so a
// scan that fails half-way (page 2 malformed, a rate limit on the third
// query) never stores page 1 and fires its mention.created events as if the
// scan had worked; the source is failing, its State and last successful
// scan do not move, and the next scan's window covers the same posts again.
//
// The one exception is a fetch made of independent units, each a separate
// thing the monitor names: news (each feed URL, Google News, GDELT), reviews
// (each review URL) and LinkedIn (each organization page). One dead feed
// must not stop every other feed for good, so each unit is all or nothing:
// a unit that failed contributes no post, the units that completed are kept,
// and Fetch returns a *PartialError naming the failed ones. The source is
// still failing (the failed unit is retried over the same window next scan;
// dedupe absorbs what the others stored again).

// PartialError is the error of a Fetch whose independent units partly
// failed: Batch.Posts holds the posts of the units that completed, and only
// those. It wraps the failures (errors.Is/As see through it, e.g. to a
// RateLimitedError).
type PartialError struct{ Err error }

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// partial wraps the failures of some units of a fetch; nil when none failed.
func partial(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return &PartialError{Err: errors.Join(errs...)}
}

// RateLimitedError says the platform refused for now; retry after Until.
type RateLimitedError struct {
	Source string
	Until  time.Time
	Body   string // the start of the platform's answer (it may say the limit is a cap)
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("%s: rate limited until %s", e.Source, e.Until.UTC().Format(time.RFC3339))
}

// CapReachedError says the platform's periodic usage cap is used up (X's
// monthly post cap: a 429 UsageCapExceeded): unlike a rate limit it lasts
// until the period ends, so the source is not asked again before Until.
type CapReachedError struct {
	Source string
	Until  time.Time
	Detail string // the platform's words, e.g. "Usage cap exceeded: Monthly product cap"
}

func (e *CapReachedError) Error() string {
	return fmt.Sprintf("%s: usage cap reached (%s) until %s", e.Source, e.Detail, e.Until.UTC().Format(time.RFC3339))
}

// limitBody is what a RateLimitedError keeps of a platform's 429 answer:
// enough to tell a monthly cap from a rate limit (X's UsageCapExceeded is
// about 300 bytes), nothing of a user-supplied URL's.
func (h *HTTP) limitBody(b []byte) string {
	if h.UserURL {
		return ""
	}
	return string(b[:min(len(b), 2048)])
}

// IsRateLimited reports whether err is (or wraps) a RateLimitedError.
func IsRateLimited(err error) (*RateLimitedError, bool) {
	var rl *RateLimitedError
	ok := errors.As(err, &rl)
	return rl, ok
}
