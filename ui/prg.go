package ui

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Post/Redirect/Get: a form's POST always answers 303. What the page it
// returns to must show once — the failed form's errors and typed values, or
// a secret shown once — is kept here, in memory, under a random token that
// a short-lived cookie carries. The GET of that page takes it (once): a
// reload shows the page as stored and never submits the form again.

const formCookie = "earshot_form"

// stashTTL bounds how long a stashed state waits for its GET.
const stashTTL = 5 * time.Minute

type stashed struct {
	st      *actionState
	session string // the session token it belongs to
	path    string // the page it is for
	expires time.Time
}

type stash struct {
	mu sync.Mutex
	m  map[string]stashed
}

// put stores st for the session's next GET of back and sets the cookie.
func (u *UI) putStash(w http.ResponseWriter, s *session, back string, st *actionState) {
	if st.form != nil { // never keep a password in memory longer than the request
		f := url.Values{}
		for k, v := range st.form {
			if !strings.Contains(k, "password") {
				f[k] = v
			}
		}
		st.form = f
	}
	path := back
	if bu, err := url.Parse(back); err == nil {
		path = bu.Path
	}
	tok := randString(18)
	now := u.now()
	u.stash.mu.Lock()
	if u.stash.m == nil {
		u.stash.m = map[string]stashed{}
	}
	for k, v := range u.stash.m {
		if now.After(v.expires) {
			delete(u.stash.m, k)
		}
	}
	u.stash.m[tok] = stashed{st: st, session: s.token, path: path, expires: now.Add(stashTTL)}
	u.stash.mu.Unlock()
	u.setCookie(w, formCookie, tok, int(stashTTL.Seconds()))
}

// takeStash returns the state stashed for this GET (its session and path)
// and forgets it; nil when there is none.
func (u *UI) takeStash(w http.ResponseWriter, r *http.Request, s *session) *actionState {
	c, err := r.Cookie(formCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	u.stash.mu.Lock()
	v, ok := u.stash.m[c.Value]
	if ok && v.session == s.token && v.path == r.URL.Path {
		delete(u.stash.m, c.Value)
	}
	u.stash.mu.Unlock()
	if !ok || v.session != s.token || u.now().After(v.expires) {
		u.setCookie(w, formCookie, "", -1)
		return nil
	}
	if v.path != r.URL.Path {
		return nil // another page opened first; the cookie waits for its page
	}
	u.setCookie(w, formCookie, "", -1)
	return v.st
}
