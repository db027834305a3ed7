package capability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"earshot/store"
)

// Config is what the capabilities need to know about the deployment.
type Config struct {
	BaseURL              string         // e.g. http://127.0.0.1:8080
	DocsURL              string         // e.g. {BaseURL}/docs
	PlanQuotas           map[string]int // mentions per month; 0 = unlimited
	AllowPrivateWebhooks bool
	SessionTTL           time.Duration // a session's absolute lifetime (30 days)
	// SessionIdle ends a session unused for this long (default 12 h;
	// negative: no idle limit). EARSHOT_SESSION_IDLE.
	SessionIdle       time.Duration
	IdempotencyWindow time.Duration
	// CrashAt, when set, is called at named points of a request where a
	// crash is most harmful ("idempotent-write": the change is made but
	// not committed; "idempotent-commit": committed, not yet answered).
	// Only fault tests set it (EARSHOT_TEST_CRASH_AFTER, config.go), to
	// kill the process there.
	CrashAt func(point string)
}

// Service holds the dependencies of every capability and the catalogue.
type Service struct {
	Store  *store.Store
	Config Config
	Log    *slog.Logger
	// Hooks for other parts of the process; nil hooks are skipped.
	MonitorChanged func(projectID, monitorID string) // nudges the scheduler
	// SendEmail sends a plain-text email (invitations); nil when SMTP is
	// not configured.
	SendEmail func(ctx context.Context, to, subject, body string) error

	caps        []*Capability
	sessions    []*Capability // session operations (sessions.go)
	byName      map[string]*Capability
	keyTouched  sync.Map // key id → time of the last recorded use
	sessTouched sync.Map // session id → time of the last recorded use
	inFlight    sync.Map // idempotent requests running in this process (Execute)
	logins      loginGuard
	cursorKey   []byte         // this installation's cursor signing key (cursor.go)
	formKey     []byte         // seals the dashboard's form state (cursor.go, ui/prg.go)
	mail        sync.WaitGroup // emails sent after answering (mail.go)
}

// New builds the service and its catalogue.
func New(st *store.Store, cfg Config, log *slog.Logger) *Service {
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 30 * 24 * time.Hour
	}
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.IdempotencyWindow == 0 {
		cfg.IdempotencyWindow = 24 * time.Hour
	}
	if cfg.DocsURL == "" {
		cfg.DocsURL = cfg.BaseURL + "/docs"
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Service{Store: st, Config: cfg, Log: log}
	s.cursorKey = s.loadCursorKey()
	s.formKey = s.loadInstallationKey(formStateKeyName, "dashboard form state")
	for _, group := range [][]*Capability{
		s.projectCaps(), s.memberCaps(), s.keyCaps(), s.monitorCaps(), s.groupCaps(),
		s.mentionCaps(), s.briefCaps(), s.spikeCaps(), s.storyCaps(), s.viewCaps(), s.categoryCaps(), s.alertCaps(), s.webhookCaps(), s.usageCaps(),
	} {
		s.caps = append(s.caps, group...)
	}
	s.sessions = s.sessionCaps()
	s.byName = map[string]*Capability{}
	for _, c := range s.caps {
		if _, dup := s.byName[c.Name]; dup {
			panic("duplicate capability " + c.Name)
		}
		s.byName[c.Name] = c
	}
	for _, c := range s.sessions {
		if _, dup := s.byName[c.Name]; dup {
			panic("duplicate capability " + c.Name)
		}
	}
	return s
}

// Capabilities returns the catalogue in declaration order: every operation
// REST, MCP, the CLI and the dashboard's forms offer. The session
// operations are apart (SessionCapabilities).
func (s *Service) Capabilities() []*Capability { return s.caps }

// Capability returns one capability by name.
func (s *Service) Capability(name string) (*Capability, bool) {
	c, ok := s.byName[name]
	return c, ok
}

// SortedNames returns the capability names, sorted.
func (s *Service) SortedNames() []string {
	out := make([]string, 0, len(s.caps))
	for _, c := range s.caps {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// DocsURL is the reference page of a capability (meta.docs).
func (s *Service) DocsURL(name string) string {
	if name == "" {
		return s.Config.DocsURL
	}
	return s.Config.DocsURL + "/reference/" + name
}

// Outcome is the result of executing a capability through any binding.
type Outcome struct {
	Status   int
	Data     any    // success: the typed output, or json.RawMessage on replay
	Err      *Error // failure
	Replayed bool
	Cause    error // the unexpected error behind an INTERNAL, for the log
	// RetryAfter is the wait a 429 asks for (LimitedError), in whole
	// seconds; 0 otherwise.
	RetryAfter int
}

type storedOutcome struct {
	Status int             `json:"status"`
	Data   json.RawMessage `json:"data,omitempty"`
	Err    *Error          `json:"error,omitempty"`
}

// Execute authorizes and runs c with in, applying the archived-project rule
// and, when idemKey is set, idempotency (docs/decisions.md#idempotency).
func (s *Service) Execute(ctx context.Context, c *Capability, p *Principal, in any, idemKey string) (out Outcome) {
	if err := c.Authorize(p); err != nil {
		return failure(err, c)
	}
	if f := nulField(in); f != "" {
		return failure(Invalid(f, "%s must not contain the NUL character (U+0000)", f), c)
	}
	if strings.IndexByte(idemKey, 0) >= 0 {
		return failure(Invalid("Idempotency-Key", "Idempotency-Key must not contain the NUL character (U+0000)"), c)
	}
	if idemKey != "" && c.Write {
		if n := len([]rune(idemKey)); n < minIdemKeyLen || n > maxIdemKeyLen {
			return failure(Invalid("Idempotency-Key", "Idempotency-Key must be 8 to 128 characters"), c)
		}
		scope := "project:" + p.ProjectID
		if p.ProjectID == "" || c.NoProject {
			scope = "user:" + p.UserID
		}
		body, _ := json.Marshal(in)
		sum := sha256.Sum256(append([]byte(c.Name+"\x00"), body...))
		hash := hex.EncodeToString(sum[:])
		// One request per key at a time in this process: a second one
		// answers IN_USE at once rather than queue behind the first's
		// transaction. The mark lives in memory, so a process that dies
		// takes it along: nothing blocks the key after a crash.
		flight := scope + "\x00" + c.Name + "\x00" + idemKey
		if _, busy := s.inFlight.LoadOrStore(flight, struct{}{}); busy {
			return failure(&Error{Status: http.StatusConflict, Code: "IDEMPOTENCY_KEY_IN_USE", Message: "a request with this Idempotency-Key is still running"}, c)
		}
		defer s.inFlight.Delete(flight)
		// The request and its stored answer commit in one transaction
		// (store.BeginIdem): a crash cannot keep the change and lose the
		// answer. Another process's request with the key (PostgreSQL)
		// waits for that transaction here and then replays its answer.
		t, rec, err := s.Store.BeginIdem(ctx, scope, c.Name, idemKey)
		if err != nil {
			return failure(err, c)
		}
		if rec != nil {
			return replay(rec, hash, c)
		}
		ctx = t.Context()
		defer func() {
			// A panic propagates to the binding's recovery; undo first.
			if r := recover(); r != nil {
				t.Rollback()
				panic(r)
			}
			if !storable(out) {
				t.Rollback() // refused or failed: nothing of it stays
				return
			}
			so := storedOutcome{Status: out.Status, Err: out.Err}
			if out.Err == nil {
				so.Data, _ = json.Marshal(out.Data)
				so.Data = withoutSecrets(so.Data, c.Secrets)
			}
			b, _ := json.Marshal(so)
			s.crashPoint("idempotent-write")
			if err := s.Store.FinishIdem(t, scope, c.Name, idemKey, hash, out.Status, b, s.Config.IdempotencyWindow); err != nil {
				// The change rolled back with its answer: the client
				// must not see it succeed.
				out = failure(err, c)
				return
			}
			s.crashPoint("idempotent-commit")
		}()
	}
	if c.Write && !c.NoProject {
		proj, err := s.Store.Project(ctx, p.ProjectID)
		if err != nil {
			return failure(err, c)
		}
		if proj.Archived() {
			return failure(Conflict("this project is archived; it answers reads only"), c)
		}
	}
	data, err := c.run(ctx, p, in)
	if err != nil {
		return failure(err, c)
	}
	return Outcome{Status: http.StatusOK, Data: data}
}

// replay answers a request with the stored answer of its key, or 409 when
// the key was used for another request.
func replay(rec *store.IdemRecord, hash string, c *Capability) Outcome {
	if rec.RequestHash != hash {
		return failure(&Error{Status: http.StatusConflict, Code: "IDEMPOTENCY_KEY_REUSED", Message: "this Idempotency-Key was used with a different request"}, c)
	}
	var so storedOutcome
	if err := json.Unmarshal(rec.Response, &so); err != nil {
		return Outcome{Status: 500, Err: Internal(), Cause: err}
	}
	o := Outcome{Status: so.Status, Err: so.Err, Replayed: true}
	if so.Err == nil {
		o.Data = so.Data
	} else {
		so.Err.Status = so.Status
	}
	return o
}

// crashPoint lets a fault test kill the process at a named point
// (Config.CrashAt); it does nothing otherwise.
func (s *Service) crashPoint(name string) {
	if s.Config.CrashAt != nil {
		s.Config.CrashAt(name)
	}
}

// withoutSecrets returns data with each named top-level field that is
// present set to null: what the idempotency record may keep of a response
// that showed a secret once (docs/decisions.md#credentials).
func withoutSecrets(data json.RawMessage, secrets []string) json.RawMessage {
	if len(secrets) == 0 {
		return data
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return json.RawMessage(`null`) // never keep what could not be redacted
	}
	for _, name := range secrets {
		if _, ok := obj[name]; ok {
			obj[name] = json.RawMessage(`null`)
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

// storable: responses that reached the operation are kept
// (docs/decisions.md#idempotency).
func storable(o Outcome) bool {
	if o.Err == nil {
		return o.Status >= 200 && o.Status < 300
	}
	switch o.Err.Code {
	case "USAGE_LIMIT_REACHED", "NOT_FOUND", "CONFLICT":
		return true
	}
	return false
}

func failure(err error, c *Capability) Outcome {
	e, known := AsError(err, resourceName(c))
	o := Outcome{Status: e.Status, Err: e}
	if !known || e.Code == "STORAGE_FULL" { // an operator must hear of a full disk
		o.Cause = err
	}
	var le *LimitedError
	if errors.As(err, &le) {
		o.RetryAfter = le.RetryAfterSeconds()
	}
	return o
}

func resourceName(c *Capability) string {
	if c == nil || c.Group == "" {
		return "resource"
	}
	return c.Group
}

// now is the service's clock, in UTC.
func (s *Service) now() time.Time { return time.Now().UTC() }
