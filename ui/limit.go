package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// Options are what the HTTP server gives the dashboard.
type Options struct {
	// Limit takes cost tokens from the rate-limit bucket of a credential
	// (capability.Principal.CredentialID) and answers 0, or how long to
	// wait when the bucket holds too few. It is the server's per-credential
	// limiter, so a session's dashboard requests and the same session's
	// REST and /mcp calls draw on one budget. Nil: no limit (tests of
	// other things).
	Limit func(credential string, cost int) time.Duration
}

type sessionCtxKey struct{}

// routeCost is how many tokens a dashboard request of a route takes: the
// capability.Cost of the heaviest operation it runs (README, "Security,
// third round", M3); 1 for the rest.
func (u *UI) routeCost(capName string) func(httprouter.Params) int {
	cost := 1
	if c, ok := u.svc.Capability(capName); ok {
		cost = c.Cost()
	}
	return func(httprouter.Params) int { return cost }
}

// actionCost is the cost of a form action: that of the capability it runs.
func (u *UI) actionCost(ps httprouter.Params) int {
	if c, ok := u.svc.Capability(ps.ByName("cap")); ok {
		return c.Cost()
	}
	return 1
}

// metered charges a logged-in request to its session's bucket before h
// runs, and answers 429 with Retry-After when the bucket is empty. The
// session it resolved travels in the request's context, so h does not
// resolve it again. A request without a (valid) session is not charged:
// h sends it to the login page, and logging in has its own limiter.
func (u *UI) metered(cost func(httprouter.Params) int, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if u.opts.Limit == nil {
			h(w, r, ps)
			return
		}
		s, err := u.loadSession(r)
		if err != nil {
			h(w, r, ps)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), sessionCtxKey{}, s))
		if wait := u.opts.Limit(s.d.UserPrincipal().CredentialID(), cost(ps)); wait > 0 {
			u.tooMany(w, r, wait)
			return
		}
		h(w, r, ps)
	}
}

// tooMany answers a request over the session's budget: the API envelope's
// error for the inbox's JavaScript (/ui/…), a page for a person.
func (u *UI) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := max(1, int((wait+time.Second-1)/time.Second))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Cache-Control", "no-store")
	e := &capability.Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED",
		Message: "too many requests from this session; retry after " + strconv.Itoa(secs) + " seconds"}
	if strings.HasPrefix(r.URL.Path, "/ui/") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(e.Status)
		json.NewEncoder(w).Encode(map[string]any{"error": e})
		return
	}
	u.renderBare(w, e.Status, "error", map[string]any{"Title": "Too many requests",
		"Message": "This session sent too many requests at once. Wait " + strconv.Itoa(secs) + " seconds and reload the page."})
}
