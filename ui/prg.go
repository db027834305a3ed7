package ui

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"earshot/capability"
)

// Post/Redirect/Get: a form's POST always answers 303. What the page it
// returns to must show once — the failed form's errors and typed values, or
// a secret shown once — travels in a short-lived cookie, sealed (AES-GCM)
// under a key every process on the database shares (the installation
// secret capability.Service.FormStateKey), bound to the session and the
// page. So the GET may land on any process of the installation. The GET of
// that page takes it (once: the cookie is cleared): a reload shows the page
// as stored and never submits the form again.
//
// A state too big for a cookie (over maxSealed) stays in the memory of the
// process that took the POST, under a random token in the cookie, as all
// state once did: with several processes, its GET must reach that process.

const formCookie = "earshot_form"

// stashTTL bounds how long a stashed state waits for its GET.
const stashTTL = 5 * time.Minute

// sealedPrefix marks a sealed state in the cookie (a memory token is
// plain base64url, without a dot).
const sealedPrefix = "s1."

// maxSealed bounds a sealed cookie value: browsers keep cookies up to 4 KB
// with the name and attributes.
const maxSealed = 3500

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

// sealedState is an actionState on the wire.
type sealedState struct {
	Path    string          `json:"p"`
	Expires int64           `json:"x"` // unix seconds
	Cap     string          `json:"c"`
	Key     string          `json:"k,omitempty"`
	Form    url.Values      `json:"f,omitempty"`
	Errs    []sealedErr     `json:"e,omitempty"` // err first
	Result  json.RawMessage `json:"r,omitempty"` // of the capability's output type
}

type sealedErr struct {
	Status  int    `json:"s"`
	Code    string `json:"c"`
	Message string `json:"m"`
	Param   string `json:"p,omitempty"`
}

// put stores st for the session's next GET of back and sets the cookie.
func (u *UI) putStash(w http.ResponseWriter, r *http.Request, s *session, back string, st *actionState) {
	if st.form != nil { // never keep a password longer than the request
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
	now := u.now()
	if v, ok := u.seal(s, path, now.Add(stashTTL), st); ok {
		u.setCookie(w, r, formCookie, v, int(stashTTL.Seconds()))
		return
	}
	tok := randString(18)
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
	u.setCookie(w, r, formCookie, tok, int(stashTTL.Seconds()))
}

// takeStash returns the state stashed for this GET (its session and path)
// and forgets it; nil when there is none.
func (u *UI) takeStash(w http.ResponseWriter, r *http.Request, s *session) *actionState {
	c, err := r.Cookie(formCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	if strings.HasPrefix(c.Value, sealedPrefix) {
		st, path, ok := u.open(s, c.Value)
		if !ok { // tampered, another session's, expired, or its key is gone
			u.setCookie(w, r, formCookie, "", -1)
			return nil
		}
		if path != r.URL.Path {
			return nil // another page opened first; the cookie waits for its page
		}
		u.setCookie(w, r, formCookie, "", -1)
		return st
	}
	u.stash.mu.Lock()
	v, ok := u.stash.m[c.Value]
	if ok && v.session == s.token && v.path == r.URL.Path {
		delete(u.stash.m, c.Value)
	}
	u.stash.mu.Unlock()
	if !ok || v.session != s.token || u.now().After(v.expires) {
		u.setCookie(w, r, formCookie, "", -1)
		return nil
	}
	if v.path != r.URL.Path {
		return nil // another page opened first; the cookie waits for its page
	}
	u.setCookie(w, r, formCookie, "", -1)
	return v.st
}

func (u *UI) aead() (cipher.AEAD, bool) {
	block, err := aes.NewCipher(u.svc.FormStateKey())
	if err != nil {
		return nil, false
	}
	g, err := cipher.NewGCM(block)
	return g, err == nil
}

// sealAD binds a sealed state to the session it was made for: another
// session's cookie (or one from before a logout) does not open.
func sealAD(s *session) []byte { return []byte("earshot form state v1\x00" + s.token) }

// seal returns st sealed for the cookie; false when it cannot be sealed or
// is too big for a cookie.
func (u *UI) seal(s *session, path string, expires time.Time, st *actionState) (string, bool) {
	w := sealedState{Path: path, Expires: expires.Unix(), Cap: st.cap, Key: st.key, Form: st.form}
	errs := st.errs
	if len(errs) == 0 && st.err != nil {
		errs = []*capability.Error{st.err}
	}
	for _, e := range errs {
		w.Errs = append(w.Errs, sealedErr{Status: e.Status, Code: e.Code, Message: e.Message, Param: e.Param})
	}
	if st.result != nil {
		c, ok := u.svc.Capability(st.cap)
		if !ok || c.Out == nil || reflect.TypeOf(st.result) != reflect.PointerTo(c.Out) {
			return "", false // cannot be rebuilt on the other side
		}
		b, err := json.Marshal(st.result)
		if err != nil {
			return "", false
		}
		w.Result = b
	}
	plain, err := json.Marshal(w)
	if err != nil {
		return "", false
	}
	g, ok := u.aead()
	if !ok {
		return "", false
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plain)+g.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", false
	}
	v := sealedPrefix + base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, plain, sealAD(s)))
	if len(v) > maxSealed {
		return "", false
	}
	return v, true
}

// open reverses seal: the state and the page it is for; false when the
// value was not sealed for this session by this installation, or expired.
func (u *UI) open(s *session, v string) (*actionState, string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(v, sealedPrefix))
	g, ok := u.aead()
	if err != nil || !ok || len(raw) < g.NonceSize()+g.Overhead() {
		return nil, "", false
	}
	plain, err := g.Open(nil, raw[:g.NonceSize()], raw[g.NonceSize():], sealAD(s))
	if err != nil {
		return nil, "", false
	}
	var w sealedState
	if err := json.Unmarshal(plain, &w); err != nil || !u.now().Before(time.Unix(w.Expires, 0)) {
		return nil, "", false
	}
	st := &actionState{cap: w.Cap, key: w.Key, form: w.Form}
	for _, e := range w.Errs {
		st.errs = append(st.errs, &capability.Error{Status: e.Status, Code: e.Code, Message: e.Message, Param: e.Param})
	}
	if len(st.errs) > 0 {
		st.err = st.errs[0]
	}
	if len(w.Result) > 0 {
		c, ok := u.svc.Capability(w.Cap)
		if !ok || c.Out == nil {
			return nil, "", false
		}
		out := reflect.New(c.Out) // *Out, as the capability returned it
		dec := json.NewDecoder(bytes.NewReader(w.Result))
		if err := dec.Decode(out.Interface()); err != nil {
			return nil, "", false
		}
		st.result = out.Interface()
	}
	return st, w.Path, true
}
