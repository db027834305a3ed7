package ui

import (
	"bytes"
	"cmp"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
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
	user    string // its user's id: the per-user bound counts these
	path    string // the page it is for
	expires time.Time
	seq     uint64 // insertion order: the oldest is evicted first
}

// The memory stash is bounded (a viewer posting 200 forms of 1 MB pinned
// 400 MiB for five minutes): a state over maxStashEntry bytes loses its
// typed values (the errors still show; the fields come back as stored), a
// user keeps at most maxStashPerUser states and the process at most
// maxStashTotal, the oldest evicted first. A browser follows each redirect
// at once, so a person never has more than a couple waiting; at most
// maxStashTotal × maxStashEntry (16 MiB) is ever held.
const (
	maxStashEntry   = 32 << 10
	maxStashPerUser = 8
	maxStashTotal   = 512
)

type stash struct {
	mu  sync.Mutex
	m   map[string]stashed
	seq uint64
}

// put keeps v under tok, first dropping what expired and then evicting the
// oldest states of v's user, and of everyone, beyond the bounds.
func (s *stash) put(tok string, v stashed, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]stashed{}
	}
	for k, e := range s.m {
		if now.After(e.expires) {
			delete(s.m, k)
		}
	}
	s.evictOldest(maxStashPerUser-1, func(e stashed) bool { return e.user == v.user })
	s.evictOldest(maxStashTotal-1, func(stashed) bool { return true })
	s.seq++
	v.seq = s.seq
	s.m[tok] = v
}

// evictOldest deletes the oldest states that match until at most keep do.
func (s *stash) evictOldest(keep int, match func(stashed) bool) {
	var toks []string
	for k, e := range s.m {
		if match(e) {
			toks = append(toks, k)
		}
	}
	if len(toks) <= keep {
		return
	}
	slices.SortFunc(toks, func(a, b string) int { return cmp.Compare(s.m[a].seq, s.m[b].seq) })
	for _, k := range toks[:len(toks)-keep] {
		delete(s.m, k)
	}
}

// len is how many states wait.
func (s *stash) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// stateSize is about how many bytes st keeps: its typed values, its
// errors' words and its result.
func stateSize(st *actionState) int {
	n := 0
	for k, vs := range st.form {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	for _, e := range append([]*capability.Error{st.err}, st.errs...) {
		if e != nil {
			n += len(e.Message) + len(e.Param) + len(e.Code)
		}
	}
	if st.result != nil {
		b, _ := json.Marshal(st.result)
		n += len(b)
	}
	return n
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
	if st.err != nil && stateSize(st) > maxStashEntry {
		st.form = nil // too big to keep: the errors show, the values do not
		if v, ok := u.seal(s, path, now.Add(stashTTL), st); ok {
			u.setCookie(w, r, formCookie, v, int(stashTTL.Seconds()))
			return
		}
	}
	tok := randString(18)
	user := s.token
	if s.user != nil {
		user = s.user.ID
	}
	u.stash.put(tok, stashed{st: st, session: s.token, user: user, path: path, expires: now.Add(stashTTL)}, now)
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
