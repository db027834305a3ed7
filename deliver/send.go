package deliver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"earshot/netguard"
	"earshot/webhooksig"
)

// UserAgent identifies Earshot to webhook receivers.
const UserAgent = "Earshot-Webhooks/1"

// MaxResponseBody is how much of a response body a Result keeps for the
// delivery log.
const MaxResponseBody = 64 << 10

// MaxRetryAfter caps a receiver's Retry-After: deliveries to one webhook go
// out in order, so an absurd value would stall the webhook for good.
const MaxRetryAfter = 24 * time.Hour

// Outcome is what the caller does after an attempt.
type Outcome int

const (
	// Retry: the attempt failed (network error, timeout, 3xx, 4xx other
	// than 410, 5xx); schedule another one with Schedule.Next.
	Retry Outcome = iota
	// Success: the receiver answered 2xx; the delivery is done.
	Success
	// Gone: the receiver answered 410; disable the webhook.
	Gone
)

func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Gone:
		return "gone"
	default:
		return "retry"
	}
}

// Result is one delivery attempt, as the delivery log records it.
type Result struct {
	Outcome    Outcome
	StatusCode int           // 0 when no response arrived
	Body       []byte        // response body, at most MaxResponseBody bytes
	RetryAfter time.Duration // from Retry-After on 429/503, capped at MaxRetryAfter
	Duration   time.Duration // time from sending to the end of the body
	Err        error         // nil exactly when Outcome is Success
}

// Send makes one signed Standard Webhooks delivery attempt: a POST of body
// with webhook-id msgID (the same on every retry), webhook-timestamp now (a
// fresh one per attempt), and one signature per secret. client should come
// from netguard.NewClient and be shared. A cancelled ctx (shutdown) also yields
// Retry; the delivery stays pending for the next run.
func Send(ctx context.Context, client *http.Client, url string, secrets []string, msgID string, body []byte, now time.Time) Result {
	sig, err := webhooksig.SignatureHeader(secrets, msgID, now, body)
	return sendSigned(ctx, client, url, sig, err, msgID, body, now)
}

// sendSigned is Send with the signature header made (or failed) already.
func sendSigned(ctx context.Context, client *http.Client, url, sig string, err error, msgID string, body []byte, now time.Time) Result {
	if err != nil {
		return Result{Outcome: Retry, Err: fmt.Errorf("sign webhook %s: %w", msgID, err)}
	}
	// Built whole, with post's two headers, in canonical form: one map per
	// request instead of one grown by Set.
	header := http.Header{
		"Webhook-Id":        {msgID},
		"Webhook-Timestamp": {strconv.FormatInt(now.Unix(), 10)},
		"Webhook-Signature": {sig},
		"Content-Type":      {"application/json"},
		"User-Agent":        {UserAgent},
	}
	return post(ctx, client, url, header, body, now)
}

// post sends a JSON body and reads the answer into a Result.
func post(ctx context.Context, client *http.Client, url string, header http.Header, body []byte, now time.Time) Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Result{Outcome: Retry, Err: fmt.Errorf("build request: %w", err)}
	}
	if header == nil {
		header = make(http.Header, 2)
	}
	// header is the caller's, made for this request.
	header["Content-Type"] = []string{"application/json"}
	header["User-Agent"] = []string{UserAgent}
	req.Header = header

	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		// The delivery log names the URL's host (the user's own input) and
		// the kind of failure, never the dialler's text: *url.Error repeats
		// the full URL (a Slack token is in its path) and *net.OpError the
		// resolved address (an internal IP behind a rebinding name).
		return Result{Outcome: Retry, Duration: time.Since(start), Err: &deliveryError{msg: "post to " + redact(url) + ": " + netguard.Describe(err), err: err}}
	}
	defer resp.Body.Close()
	var respBody []byte
	var readErr error
	if resp.ContentLength != 0 { // the usual empty answer needs no reading
		respBody, readErr = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
		// Drain a little more so the connection can be reused; a receiver
		// sending megabytes is not worth waiting for.
		_, _ = io.CopyN(io.Discard, resp.Body, 256<<10)
	}

	r := Result{
		StatusCode: resp.StatusCode,
		Body:       respBody,
		Duration:   time.Since(start),
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		// The receiver accepted the event; a body cut short does not undo that.
		r.Outcome = Success
		return r
	case code == http.StatusGone:
		r.Outcome = Gone
		r.Err = fmt.Errorf("receiver answered %s: webhook gone", resp.Status)
		return r
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		r.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	}
	r.Outcome = Retry
	r.Err = fmt.Errorf("receiver answered %s", resp.Status)
	if readErr != nil {
		r.Err = fmt.Errorf("%w (reading body: %w)", r.Err, readErr)
	}
	return r
}

// parseRetryAfter reads delay-seconds or an HTTP date (RFC 9110 §10.2.3).
// Anything unreadable or in the past means no hint.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxRetryAfter)
}

// redact keeps only the scheme and host of a URL for error messages:
// Slack and other incoming-webhook URLs carry their token in the path or
// query, and errors end up in logs and the delivery log.
func redact(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "webhook URL"
	}
	return u.Scheme + "://" + u.Host
}

// deliveryError is a failed attempt as the delivery log shows it; the
// original error stays reachable through Unwrap.
type deliveryError struct {
	msg string
	err error
}

func (e *deliveryError) Error() string { return e.msg }
func (e *deliveryError) Unwrap() error { return e.err }
