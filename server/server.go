// Package server is the HTTP face of Earshot: the REST binding of the
// capability catalogue, authentication, rate limiting, health and metrics.
// Other faces (MCP over HTTP, docs, dashboard) mount on the same router.
package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
	"earshot/internal/workers"
	"earshot/metrics"
)

// Options configure the HTTP server.
type Options struct {
	RateLimit   float64 // requests per second per credential (0: default 50)
	RateBurst   int     // bucket size (0: default 100)
	MaxBodySize int64   // bytes (0: 1 MiB)
	// MetricsToken, when set, is the bearer token GET /metrics asks for
	// (EARSHOT_METRICS_TOKEN); empty leaves /metrics open, for a scraper on
	// a private network.
	MetricsToken string
	// MaxMCPBatch caps the JSON-RPC calls in one /mcp batch (0: 20).
	MaxMCPBatch int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For,
	// Forwarded and X-Forwarded-Proto/Host are believed
	// (EARSHOT_TRUSTED_PROXIES); none by default.
	TrustedProxies TrustedProxies
	// Version is the build's version, reported to MCP clients.
	Version string
	// MCPToolsets and MCPReadOnly are the MCP tools /mcp loads when a
	// connection does not choose (EARSHOT_MCP_TOOLSETS, EARSHOT_MCP_READ_ONLY).
	MCPToolsets []string
	MCPReadOnly bool
	// Workers is the health of serve's background workers, shown by
	// /healthz and /metrics; nil leaves them out.
	Workers *workers.Registry
}

// Server routes every HTTP request.
type Server struct {
	svc     *capability.Service
	log     *slog.Logger
	opts    Options
	Router  *httprouter.Router
	Metrics *metrics.Registry
	limiter *limiter
	// registrations limits OAuth client registration per client address
	// (server/oauth.go), apart from the per-credential limiter.
	registrations *limiter
	// basePath is the path of the public base URL ("/earshot" for
	// https://example.com/earshot/; "" at the root), under which every
	// route is served.
	basePath string

	// pageNotFound answers unknown non-API paths with an HTML page (set by
	// the dashboard's mount); nil means the JSON envelope everywhere.
	pageNotFound http.HandlerFunc

	requests *metrics.Counter
	latency  *metrics.Histogram

	// ClassifierStatus reports the active classifier (and Ollama's
	// circuit breaker) for /healthz; nil leaves it out.
	// detail is true for a caller with the operator's metrics token:
	// anonymous callers get no host or error text.
	ClassifierStatus func(detail bool) any
}

// New builds the server and registers every capability's REST route.
func New(svc *capability.Service, reg *metrics.Registry, opts Options) *Server {
	if opts.RateLimit == 0 {
		opts.RateLimit = 50
	}
	if opts.RateBurst == 0 {
		opts.RateBurst = 100
	}
	if opts.MaxBodySize == 0 {
		opts.MaxBodySize = 1 << 20
	}
	if opts.MaxMCPBatch == 0 {
		opts.MaxMCPBatch = 20
	}
	if reg == nil {
		reg = metrics.New()
	}
	s := &Server{svc: svc, log: svc.Log, opts: opts, Metrics: reg, limiter: newLimiter(opts.RateLimit, opts.RateBurst),
		basePath: BasePath(svc.Config.BaseURL)}
	s.requests = reg.Counter("earshot_http_requests_total", "HTTP API requests by capability and status.", "capability", "status")
	s.latency = reg.Histogram("earshot_http_request_duration_seconds", "HTTP API latency by capability.", metrics.DefaultBuckets, "capability")
	r := httprouter.New()
	r.RedirectFixedPath = false
	r.RedirectTrailingSlash = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// A person who mistypes a dashboard address gets the dashboard's
		// page; programs (the API, /mcp, docs, health) get the envelope.
		if s.pageNotFound != nil && !machinePath(req.URL.Path) {
			s.pageNotFound(w, req)
			return
		}
		s.writeError(w, req, requestIDOf(req), "", capability.NotFound("route"))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		e := &capability.Error{Status: http.StatusMethodNotAllowed, Code: "METHOD_NOT_ALLOWED", Message: req.Method + " is not allowed here"}
		s.writeError(w, req, requestIDOf(req), "", e)
	})
	r.GlobalOPTIONS = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// httprouter has set Allow; the documented headers go on every response.
		s.setHeaders(w, requestIDOf(req))
		w.WriteHeader(http.StatusNoContent)
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		id := requestIDFrom(req.Context())
		s.log.Error("panic", "request_id", id, "panic", v, "stack", string(debug.Stack()))
		s.writeError(w, req, id, "", capability.Internal())
	}
	s.Router = r
	for _, c := range svc.Capabilities() {
		r.Handle(c.Method, c.Path, s.capabilityHandler(c))
	}
	for _, c := range svc.SessionCapabilities() {
		r.Handle(c.Method, c.Path, s.capabilityHandler(c))
	}
	r.GET("/healthz", s.healthz)
	r.GET("/metrics", s.metrics)
	s.mountAgents()
	s.mountOAuth()
	s.mountUI()
	return s
}

// BasePath is the path of a base URL without its trailing slash: "" for
// https://example.com or https://example.com/, "/earshot" for
// https://example.com/earshot/.
func BasePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.Path, "/")
}

// machinePath reports whether path belongs to a machine interface, whose
// unknown routes answer the JSON error envelope.
func machinePath(path string) bool {
	for _, p := range []string{"/api/", "/mcp", "/docs", "/healthz", "/metrics"} {
		if path == strings.TrimSuffix(p, "/") || strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// ServeHTTP implements http.Handler: it works out where the request comes
// from (the client address, behind trusted proxies), takes the base URL's
// path off, gives the request its id, routes it and logs one line for it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	o := s.opts.TrustedProxies.originOf(r)
	info := &requestInfo{id: newRequestID()}
	r = r.WithContext(context.WithValue(context.WithValue(r.Context(), requestIDKey, info.id), requestInfoKey, info))
	// Everything past here (the login limiter, the logs, the dashboard)
	// sees the client, not the proxy: RemoteAddr is rewritten, as the
	// usual real-IP middlewares do. The scheme the client used goes in
	// URL.Scheme (empty on a direct server request), which the dashboard
	// reads to make its cookies Secure.
	r.RemoteAddr = o.client
	u := *r.URL
	r.URL = &u
	if o.https {
		r.URL.Scheme = "https"
	}
	if o.host != "" {
		r.Host = o.host
	}
	sw := &statusWriter{ResponseWriter: w}
	sw.Header().Set("X-Request-Id", info.id)
	route := s.route(sw, r)
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	level := slog.LevelInfo
	if route == "/healthz" || route == "/metrics" {
		level = slog.LevelDebug // probes every few seconds would drown the rest
	}
	attrs := []slog.Attr{slog.String("request_id", info.id), slog.String("client", o.client), slog.String("method", r.Method),
		slog.String("route", route), slog.Int("status", status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000)}
	if info.capability != "" {
		attrs = append(attrs, slog.String("capability", info.capability))
	}
	s.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// route serves r at its path under the base URL's and returns the route
// pattern that answered ("/mentions/:id", not the path with its id), for
// the log. HEAD is answered as GET without the body (net/http drops it). A
// path segment holding an encoded slash ("/api/v1/keywords/AC%2FDC") is
// routed as one segment: httprouter matches the decoded path, where it
// would be two; the slash travels as encodedSlash and path parameters turn
// it back.
func (s *Server) route(w http.ResponseWriter, r *http.Request) string {
	if r.Method == http.MethodHead {
		r = r.Clone(r.Context())
		r.Method = http.MethodGet
	}
	if strings.Contains(r.URL.Path, encodedSlash) {
		s.writeError(w, r, requestIDOf(r), "", capability.Invalid("", "the request path must not contain NUL (%%00)"))
		return "-"
	}
	if !s.stripBasePath(w, r) {
		return "-"
	}
	if raw := r.URL.RawPath; raw != "" && strings.Contains(strings.ToUpper(raw), "%2F") {
		segs := strings.Split(raw, "/")
		for i, seg := range segs {
			un, err := url.PathUnescape(seg)
			if err != nil {
				s.writeError(w, r, requestIDOf(r), "", capability.Invalid("", "malformed escape in the request path"))
				return "-"
			}
			segs[i] = strings.ReplaceAll(un, "/", encodedSlash)
		}
		r.URL.Path, r.URL.RawPath = strings.Join(segs, "/"), ""
	}
	s.Router.ServeHTTP(w, r)
	return routePattern(s.Router, r.Method, r.URL.Path)
}

// stripBasePath (docs/decisions.md#base-url) takes the base URL's path (--base-url
// https://example.com/earshot/ → "/earshot") off the request's: Earshot
// serves under that path itself, so a proxy passes the path through
// unchanged. /healthz and /metrics also answer at the root, for probes and
// scrapers that reach the listener directly; GET / is sent to the base
// path; anything else outside it is a 404 saying why. It reports whether
// the request is to be routed.
func (s *Server) stripBasePath(w http.ResponseWriter, r *http.Request) bool {
	base := s.basePath
	if base == "" {
		return true
	}
	p := r.URL.Path
	switch {
	case p == base:
		http.Redirect(w, r, base+"/", http.StatusMovedPermanently)
		return false
	case strings.HasPrefix(p, base+"/"):
		r.URL.Path = p[len(base):]
		if raw := r.URL.RawPath; raw != "" {
			if rawBase := (&url.URL{Path: base}).EscapedPath(); strings.HasPrefix(raw, rawBase+"/") {
				r.URL.RawPath = raw[len(rawBase):]
			} else {
				r.URL.RawPath = ""
			}
		}
		return true
	case p == "/healthz" || p == "/metrics":
		return true
	case p == "/" && r.Method == http.MethodGet:
		http.Redirect(w, r, base+"/", http.StatusFound)
		return false
	}
	s.writeError(w, r, requestIDOf(r), "", &capability.Error{Status: http.StatusNotFound, Code: "NOT_FOUND",
		Message: "this Earshot serves under " + base + "/ (the path of its --base-url); a reverse proxy must pass the path through unchanged, not strip it"})
	return false
}

// routePattern is the router's pattern for path ("/mentions/:id"), built
// from the parameters the router finds: each one's value is put back as
// its name. "-" when no route matches.
func routePattern(rt *httprouter.Router, method, path string) string {
	h, ps, _ := rt.Lookup(method, path)
	if h == nil {
		return "-"
	}
	if len(ps) == 0 {
		return path
	}
	tail := ""
	if last := ps[len(ps)-1]; strings.HasPrefix(last.Value, "/") && strings.HasSuffix(path, last.Value) {
		// A catch-all (/static/*filepath): the rest of the path.
		path, tail = path[:len(path)-len(last.Value)], "/*"+last.Key
		ps = ps[:len(ps)-1]
	}
	segs := strings.Split(path, "/")
	i := 0
	for _, p := range ps {
		for ; i < len(segs); i++ {
			if segs[i] == p.Value {
				segs[i] = ":" + p.Key
				i++
				break
			}
		}
	}
	return strings.Join(segs, "/") + tail
}

// requestInfo is what a handler tells the request's log line.
type requestInfo struct {
	id         string
	capability string
}

// statusWriter remembers the status a handler answered, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streamed answers (CSV export, MCP) through.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// encodedSlash stands for "%2F" inside a routed path segment; a request
// path holding NUL itself is refused above.
const encodedSlash = "\x00"

// pathValue is a path parameter value with encoded slashes restored.
func pathValue(v string) string { return strings.ReplaceAll(v, encodedSlash, "/") }

type ctxKey int

const (
	requestIDKey ctxKey = iota
	requestInfoKey
)

// requestIDOf is the request's id, given when it came in (ServeHTTP); a
// request that did not come through ServeHTTP (a test calling a handler)
// gets a new one.
func requestIDOf(r *http.Request) string {
	if id := requestIDFrom(r.Context()); id != "" {
		return id
	}
	return newRequestID()
}

// noteCapability names the capability a request ran, for its log line.
func noteCapability(ctx context.Context, name string) {
	if info, ok := ctx.Value(requestInfoKey).(*requestInfo); ok {
		info.capability = name
	}
}

func newRequestID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 20)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "req_" + string(b)
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// envelope types
type meta struct {
	Capability          string `json:"capability"`
	RequestID           string `json:"requestId"`
	IdempotencyReplayed bool   `json:"idempotencyReplayed"`
	Docs                string `json:"docs"`
}

type errorMeta struct {
	Capability string `json:"capability"`
	RequestID  string `json:"requestId"`
	// IdempotencyReplayed is set on a replayed stored error (402, 404,
	// 409 CONFLICT), as on a replayed success (docs/decisions.md#idempotency).
	IdempotencyReplayed bool   `json:"idempotencyReplayed,omitempty"`
	Docs                string `json:"docs"`
}

func (s *Server) setHeaders(w http.ResponseWriter, id string) {
	w.Header().Set("X-Request-Id", id)
	w.Header().Set("Api-Version", capability.APIVersion)
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, id, capName string, e *capability.Error) {
	s.writeErrorMeta(w, id, e, errorMeta{Capability: capName, RequestID: id, Docs: s.docsURL(capName)})
}

// docsURL is meta.docs for an operation: its reference page, or the
// reference's index for the session operations, which have none.
func (s *Server) docsURL(capName string) string {
	if _, ok := s.svc.SessionCapability(capName); ok {
		return s.svc.DocsURL("")
	}
	return s.svc.DocsURL(capName)
}

func (s *Server) writeErrorMeta(w http.ResponseWriter, id string, e *capability.Error, m errorMeta) {
	s.setHeaders(w, id)
	if e.Status == http.StatusUnauthorized {
		// resource_metadata leads an MCP host to the OAuth flow (RFC 9728 §5.1).
		w.Header().Set("WWW-Authenticate", `Bearer realm="earshot", resource_metadata="`+s.resourceMetadataURL()+`"`)
	}
	if m.IdempotencyReplayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	s.writeJSON(w, e.Status, map[string]any{"error": e, "meta": m})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	h := s.svc.Health(ctx)
	status, code := "ok", http.StatusOK
	checks := h.Checks
	if h.Degraded {
		// Still serving (reads answer), so 200: a balancer keeps it, a
		// monitor that reads the body sees what to fix.
		status = "degraded"
	}
	if !h.OK {
		status, code = "unavailable", http.StatusServiceUnavailable
		// /healthz answers anyone: a failed check says "failed", and its
		// error (on PostgreSQL the database's host, port, user and name)
		// goes to the log only.
		checks = make(map[string]string, len(h.Checks))
		for k, v := range h.Checks {
			if v != "ok" && v != capability.MigrationsPending && v != capability.MigrationsNewer {
				s.log.Warn("health check failed", "check", k, "err", v)
				v = "failed"
			}
			checks[k] = v
		}
	}
	// The backend is named so that a load balancer's or an operator's
	// check shows which store a process runs on ("sqlite" or "postgres").
	body := map[string]any{"status": status, "checks": checks, "api_version": capability.APIVersion, "backend": h.Backend}
	if s.opts.Workers != nil {
		// A background worker that fails or lags makes the process
		// "degraded" but keeps 200: the API still answers, and a restart
		// (what an orchestrator does on a failing check) would not cure a
		// full disk or a locked database, only loop. 503 stays for what
		// makes the API itself unusable (the database checks).
		ws, degraded := s.opts.Workers.Snapshot()
		body["workers"] = ws
		if degraded && code == http.StatusOK {
			body["status"] = "degraded"
		}
	}
	if s.ClassifierStatus != nil {
		// Informational: a fallback to the built-in classifier is not
		// unhealthy, so it never changes status or code.
		body["classifier"] = s.ClassifierStatus(s.operatorCaller(r))
	}
	s.setHeaders(w, requestIDOf(r))
	s.writeJSON(w, code, body)
}

// operatorCaller reports whether r bears the operator's credential, the
// EARSHOT_METRICS_TOKEN (none set: nobody is, the log has the details).
func (s *Server) operatorCaller(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.opts.MetricsToken != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.MetricsToken)) == 1
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if s.opts.MetricsToken != "" {
		got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.MetricsToken)) != 1 {
			s.writeError(w, r, requestIDOf(r), "", capability.Unauthorized("send Authorization: Bearer <the EARSHOT_METRICS_TOKEN value>"))
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.Metrics.WriteText(w)
	if s.opts.Workers != nil {
		s.opts.Workers.WriteMetrics(w)
	}
}
