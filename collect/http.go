package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"earshot/netguard"
)

// UserAgent is sent on every platform request.
const UserAgent = "earshot/1.0 (+https://github.com/earshot; self-hosted brand monitor)"

// maxBody bounds what we read from any platform response.
const maxBody = 16 << 20

// HTTP is the shared HTTP behaviour of every collector: a User-Agent,
// bounded retries with backoff on transient errors, and rate-limit signals
// turned into RateLimitedError.
type HTTP struct {
	Client  *http.Client
	Source  string
	Retries int           // extra attempts on 5xx and network errors (default 2)
	Backoff time.Duration // first backoff (default 500ms), doubled per attempt
	MaxWait time.Duration // longest Retry-After we sleep through instead of failing (default 5s)
	Now     func() time.Time
	Header  http.Header // extra headers on every request
	// UserURL marks a client of user-supplied URLs (feeds, review pages):
	// an error never quotes the response body (the status line only), and
	// an address the guard refuses is not retried.
	UserURL bool
}

// StatusError is a non-2xx answer that is not a rate limit. Its text is
// the status line only: it ends up in source_status.last_error, which
// viewers and read-only keys read, and a body (of a platform, or of
// whatever a redirect or a user's URL led to) is foreign content that
// could be an internal service's secret. Body is kept for the collectors
// that recognise a platform's error codes in it.
type StatusError struct {
	Source string
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s", e.Source, e.Status, http.StatusText(e.Status))
}

// errorBody is what a StatusError keeps of a response body (for the
// collectors' own checks, never for its text): nothing for user-supplied
// URLs, the start of it for platform APIs.
func (h *HTTP) errorBody(body []byte) string {
	if h.UserURL {
		return ""
	}
	return snippet(body)
}

func (h *HTTP) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *HTTP) maxWait() time.Duration {
	if h.MaxWait == 0 {
		return 5 * time.Second
	}
	return h.MaxWait
}

// waitForReset is for a platform that says, on a successful page, that no
// requests are left before the next one: it sleeps through a reset no
// further away than MaxWait, or returns RateLimitedError until the reset.
func (h *HTTP) waitForReset(ctx context.Context, hdr http.Header) error {
	until := h.rateLimitUntil(hdr)
	wait := until.Sub(h.now())
	if wait > h.maxWait() {
		return &RateLimitedError{Source: h.Source, Until: until}
	}
	return sleep(ctx, wait)
}

// Do sends the request built by newReq (called again per attempt) and returns
// the body of a 2xx response. 429 (and 503 with Retry-After) become
// RateLimitedError unless the wait is short enough to sleep through.
func (h *HTTP) Do(ctx context.Context, newReq func() (*http.Request, error)) ([]byte, http.Header, error) {
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	retries, backoff, maxWait := h.Retries, h.Backoff, h.maxWait()
	if retries == 0 {
		retries = 2
	}
	if backoff == 0 {
		backoff = 500 * time.Millisecond
	}
	var lastErr error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			d := backoff << (attempt - 1)
			d += time.Duration(rand.Int64N(int64(d)/2 + 1))
			if err := sleep(ctx, d); err != nil {
				return nil, nil, err
			}
		}
		req, err := newReq()
		if err != nil {
			return nil, nil, err
		}
		req = req.WithContext(ctx)
		if req.Header.Get("User-Agent") == "" {
			req.Header.Set("User-Agent", UserAgent)
		}
		for k, v := range h.Header {
			req.Header[k] = v
		}
		if !h.UserURL {
			// Tests stay hermetic: a platform request under test goes to a
			// local replay server or nowhere (user URLs: the guarded dialer).
			if err := netguard.CheckLoopbackURL(req.URL); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", h.Source, err)
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if fe := forbiddenAddress(err); fe != nil {
				fe.Platform = !h.UserURL
				return nil, nil, fmt.Errorf("%s: %w", h.Source, fe) // refused before connecting: no retry
			}
			if errors.Is(err, netguard.ErrInvalidURL) || errors.Is(err, netguard.ErrLoopbackOnly) {
				return nil, nil, fmt.Errorf("%s: refused: %w", h.Source, errors.Unwrap(err))
			}
			lastErr = fmt.Errorf("%s: %w", h.Source, transportProblem(err))
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if err != nil {
			lastErr = fmt.Errorf("%s: reading response: %w", h.Source, err)
			continue
		}
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			return body, resp.Header, nil
		case resp.StatusCode == http.StatusTooManyRequests ||
			(resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != ""):
			until := h.rateLimitUntil(resp.Header)
			if wait := until.Sub(h.now()); wait <= maxWait && attempt < retries {
				if err := sleep(ctx, wait); err != nil {
					return nil, nil, err
				}
				attempt-- // a honoured Retry-After is not a failed attempt
				retries-- // but bound the loop
				continue
			}
			return nil, resp.Header, &RateLimitedError{Source: h.Source, Until: until}
		case resp.StatusCode >= 500:
			lastErr = &StatusError{Source: h.Source, Status: resp.StatusCode, Body: h.errorBody(body)}
			continue
		default:
			return nil, resp.Header, &StatusError{Source: h.Source, Status: resp.StatusCode, Body: h.errorBody(body)}
		}
	}
	return nil, nil, lastErr
}

// GetJSON fetches url and decodes a JSON object into v. A body that is not
// valid JSON is an error (never "no posts").
func (h *HTTP) GetJSON(ctx context.Context, url string, v any) (http.Header, error) {
	return h.DoJSON(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	}, v)
}

// DoJSON is Do followed by decoding the body into v. A body that is not
// valid JSON is an error wrapping errMalformed (never "no posts").
func (h *HTTP) DoJSON(ctx context.Context, newReq func() (*http.Request, error), v any) (http.Header, error) {
	body, hdr, err := h.Do(ctx, newReq)
	if err != nil {
		return hdr, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return hdr, fmt.Errorf("%s: %w: %w", h.Source, errMalformed, jsonProblem(err, body))
	}
	return hdr, nil
}

// rateLimitUntil reads Retry-After (seconds or HTTP date) or the reset
// header of the platform (X's x-rate-limit-reset, Reddit's and Mastodon's
// X-RateLimit-Reset, Bluesky's RateLimit-Reset); default one minute.
func (h *HTTP) rateLimitUntil(hdr http.Header) time.Time {
	now := h.now()
	if ra := strings.TrimSpace(hdr.Get("Retry-After")); ra != "" {
		if s, err := strconv.Atoi(ra); err == nil && s >= 0 {
			return now.Add(time.Duration(s) * time.Second)
		}
		if t, err := http.ParseTime(ra); err == nil {
			return t
		}
	}
	if v := hdr.Get("X-Rate-Limit-Reset"); v != "" { // X: epoch seconds
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s > now.Unix() {
			return time.Unix(s, 0)
		}
	}
	if v := strings.TrimSpace(hdr.Get("X-Ratelimit-Reset")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 { // Reddit: seconds until reset
			return now.Add(time.Duration(s * float64(time.Second)))
		}
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil { // Mastodon: ISO 8601 time
			return t
		}
	}
	if v := strings.TrimSpace(hdr.Get("Ratelimit-Reset")); v != "" {
		// Bluesky sends epoch seconds; the IETF draft's form is seconds
		// until the reset. A value past 2001 can only be the former.
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
			if s > 1e9 {
				return time.Unix(s, 0)
			}
			return now.Add(time.Duration(s) * time.Second)
		}
	}
	return now.Add(time.Minute)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func snippet(b []byte) string {
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.TrimSpace(s)
}

var errMalformed = errors.New("malformed response")

// jsonProblem describes why body is not the JSON expected without quoting
// any of it (the text of a syntax error names the offending character):
// where it broke, how long it is, and a type mismatch's field.
func jsonProblem(err error, body []byte) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d of %d", syn.Offset, len(body))
	case errors.As(err, &typ):
		return fmt.Errorf("JSON %s where %s was expected (field %q)", typ.Value, typ.Type, typ.Field)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("JSON cut short after %d bytes", len(body))
	}
	return fmt.Errorf("not the JSON expected (%d bytes)", len(body))
}

// transportError is a failed request described for source_status: the
// request's host and path (no query: some platforms take their token
// there) and the kind of failure, not the dialler's text, which names the
// resolved address. The original stays reachable through Unwrap.
type transportError struct {
	msg string
	err error
}

func (e *transportError) Error() string { return e.msg }
func (e *transportError) Unwrap() error { return e.err }

func transportProblem(err error) error {
	where := ""
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			where = ue.Op + " " + u.Scheme + "://" + u.Host + u.Path + ": "
		}
	}
	return &transportError{msg: where + netguard.Describe(err), err: err}
}
