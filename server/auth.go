package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"earshot/capability"
)

// AuthenticateToken resolves an Authorization header value into a
// principal. Sessions choose their project with the Earshot-Project header
// (or, for a request about one project, its path id; or the user's only
// project).
func (s *Server) AuthenticateToken(ctx context.Context, authorization, projectHeader, projectHint string) (*capability.Principal, error) {
	if len(authorization) < 7 || !strings.EqualFold(authorization[:7], "bearer ") {
		return nil, capability.Unauthorized("send Authorization: Bearer <API key or session token>")
	}
	tok := strings.TrimSpace(authorization[7:])
	return s.svc.Authenticate(ctx, tok, projectHeader, projectHint)
}

// limiter is a token bucket per credential.
type limiter struct {
	mu      sync.Mutex
	r       rate.Limit
	burst   int
	idle    time.Duration // a bucket unseen this long is dropped
	buckets map[string]*bucket
	lastGC  time.Time
}

type bucket struct {
	l    *rate.Limiter
	seen time.Time
}

// newLimiter makes a limiter of burst tokens per key, refilled at
// perSecond. An idle bucket is dropped only once it has refilled (at the
// earliest after ten minutes): dropping a slow one sooner (the OAuth
// registration limit refills in an hour) would hand a caller who waits a
// full bucket early.
func newLimiter(perSecond float64, burst int) *limiter {
	idle := max(10*time.Minute, time.Duration(float64(burst)/perSecond*float64(time.Second)))
	return &limiter{r: rate.Limit(perSecond), burst: burst, idle: idle, buckets: map[string]*bucket{}, lastGC: time.Now()}
}

func (l *limiter) get(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.lastGC) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > l.idle {
				delete(l.buckets, k)
			}
		}
		l.lastGC = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{l: rate.NewLimiter(l.r, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	return b.l
}

// allowN takes n tokens at once (a JSON-RPC batch, an export).
func (l *limiter) allowN(key string, n int) bool { return l.get(key).AllowN(time.Now(), n) }

// cost is the tokens one operation takes: its capability.Cost, but at most
// the bucket, so a small configured burst never makes one operation
// impossible.
func (l *limiter) cost(n int) int { return max(1, min(n, l.burst)) }

// take is allowN of one operation's cost for the dashboard
// (ui.Options.Limit): 0 when the tokens were taken, else the wait until
// they are there.
func (l *limiter) take(key string, n int) time.Duration {
	n = l.cost(n)
	if l.allowN(key, n) {
		return 0
	}
	return max(l.retryAfterN(key, n), time.Second)
}

// retryAfterN is the wait until n tokens are there (a second when n is more
// than the bucket ever holds).
func (l *limiter) retryAfterN(key string, n int) time.Duration {
	res := l.get(key).ReserveN(time.Now(), n)
	if !res.OK() {
		return time.Second
	}
	d := res.Delay()
	res.Cancel()
	return d
}
