package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// Streamer is implemented by outputs that write their own body (CSV export).
type Streamer interface {
	ContentType() string
	Filename() string
	Stream(ctx context.Context, w io.Writer) error
}

// capabilityHandler is the REST binding of one capability:
// authenticate → rate-limit → decode and validate → execute → envelope.
func (s *Server) capabilityHandler(c *capability.Capability) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		id := requestIDOf(r)
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
		noteCapability(r.Context(), c.Name) // ServeHTTP's log line names it
		status := s.serveCapability(w, r, ps, c, id)
		s.requests.Inc(c.Name, strconv.Itoa(status))
		s.latency.Since(start, c.Name)
	}
}

func (s *Server) serveCapability(w http.ResponseWriter, r *http.Request, ps httprouter.Params, c *capability.Capability, id string) int {
	fail := func(e *capability.Error) int {
		s.writeError(w, r, id, c.Name, e)
		return e.Status
	}
	p, e := s.principal(w, r, ps, c, id)
	if e != nil {
		return fail(e)
	}
	if err := c.Authorize(p); err != nil {
		e, _ := capability.AsError(err, "")
		return fail(e)
	}
	in, apiErr := s.decodeREST(w, r, ps, c)
	if apiErr != nil {
		return fail(apiErr)
	}
	idemKey := r.Header.Get("Idempotency-Key")
	if vals, sent := r.Header["Idempotency-Key"]; sent && c.Write && (strings.TrimSpace(idemKey) == "" || len(vals) > 1) {
		return fail(capability.Invalid("Idempotency-Key", "Idempotency-Key must be one value of 8 to 128 characters"))
	}
	ctx := capability.WithClient(r.Context(), capability.ClientAddr(r.RemoteAddr))
	out := s.svc.Execute(ctx, c, p, in, idemKey)
	if out.Err != nil {
		if out.Cause != nil {
			s.log.Error("capability failed", "request_id", id, "capability", c.Name, "err", out.Cause)
		}
		if out.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(out.RetryAfter))
		}
		s.writeErrorMeta(w, id, out.Err, errorMeta{Capability: c.Name, RequestID: id, IdempotencyReplayed: out.Replayed, Docs: s.docsURL(c.Name)})
		return out.Err.Status
	}
	if st, ok := out.Data.(Streamer); ok {
		s.setHeaders(w, id)
		w.Header().Set("Content-Type", st.ContentType())
		w.Header().Set("Content-Disposition", `attachment; filename="`+st.Filename()+`"`)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		if err := st.Stream(r.Context(), w); err != nil {
			s.log.Error("stream failed", "request_id", id, "capability", c.Name, "err", err)
		}
		return http.StatusOK
	}
	s.setHeaders(w, id)
	if out.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	s.writeJSON(w, out.Status, map[string]any{
		"data": out.Data,
		"meta": meta{Capability: c.Name, RequestID: id, IdempotencyReplayed: out.Replayed, Docs: s.docsURL(c.Name)},
	})
	return out.Status
}

// principal authenticates the request and applies the per-credential rate
// limit, taking the operation's cost (capability.Cost). A public operation
// (logging in) runs without a principal; the session operations are
// outside the credential's bucket, as they were before the catalogue
// declared them (login has its own limiter).
func (s *Server) principal(w http.ResponseWriter, r *http.Request, ps httprouter.Params, c *capability.Capability, id string) (*capability.Principal, *capability.Error) {
	if c.Public {
		return nil, nil
	}
	hint := ""
	if c.Group == "project" {
		hint = ps.ByName("id")
	}
	p, err := s.AuthenticateToken(r.Context(), r.Header.Get("Authorization"), r.Header.Get("Earshot-Project"), hint)
	if err != nil {
		e, known := capability.AsError(err, "project")
		if !known {
			s.log.Error("authenticate", "request_id", id, "err", err)
		}
		return nil, e
	}
	if cost := s.limiter.cost(c.Cost()); !c.SessionOp && !s.limiter.allowN(p.CredentialID(), cost) {
		wait := s.limiter.retryAfterN(p.CredentialID(), cost)
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second))))
		return nil, &capability.Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED", Message: "rate limit exceeded for this credential; retry after the Retry-After seconds"}
	}
	return p, nil
}

// decodeREST merges path parameters, the query string and the JSON body into
// the capability's input. Each field may only come from where it is declared.
func (s *Server) decodeREST(w http.ResponseWriter, r *http.Request, ps httprouter.Params, c *capability.Capability) (any, *capability.Error) {
	values := map[string]json.RawMessage{}
	where := map[string]string{}
	byName := map[string]capability.Field{}
	for _, f := range c.Fields {
		byName[f.Name] = f
	}
	for _, p := range ps {
		raw, _ := json.Marshal(pathValue(p.Value))
		values[p.Key] = raw
		where[p.Key] = "path"
	}
	query, qerr := url.ParseQuery(r.URL.RawQuery)
	if qerr != nil {
		return nil, capability.Invalid("", "malformed query string: use key=value pairs joined by & with %%-escapes")
	}
	for key, vals := range query {
		for _, v := range vals {
			if !utf8.ValidString(v) {
				return nil, capability.Invalid(key, "%s must be valid UTF-8", key)
			}
		}
		f, ok := byName[key]
		if !ok || f.In != "query" {
			return nil, capability.Invalid(key, "unknown query parameter %q", key)
		}
		if len(vals) > 1 && kindOf(f.Type) != reflect.Slice {
			return nil, capability.Invalid(key, "%s given more than once", key)
		}
		raw, err := queryValue(f, vals)
		if err != nil {
			return nil, err
		}
		values[key] = raw
		where[key] = "query"
	}
	body, apiErr := s.readBody(w, r)
	if apiErr != nil {
		return nil, apiErr
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if e := checkContentType(r); e != nil {
			return nil, e
		}
		if e := checkJSONBody(body); e != nil {
			return nil, e
		}
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(strings.NewReader(string(body)))
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, capability.Invalid("", "request body must be a JSON object")
		}
		if dec.More() {
			return nil, capability.Invalid("", "request body must hold one JSON object")
		}
		for k, v := range obj {
			f, ok := byName[k]
			if !ok || f.In != "body" {
				return nil, capability.Invalid(k, "unknown field %q", k)
			}
			values[k] = v
			where[k] = "body"
		}
	}
	in, err := c.Decode(values, func(f capability.Field) bool { return where[f.Name] == f.In })
	if err != nil {
		var e *capability.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, capability.Invalid("", "%s", err.Error())
	}
	return in, nil
}

func kindOf(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

func queryValue(f capability.Field, vals []string) (json.RawMessage, *capability.Error) {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v := vals[0]
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, capability.Invalid(f.Name, "%s must be an integer", f.Name)
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case reflect.Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, capability.Invalid(f.Name, "%s must be true or false", f.Name)
		}
		return json.RawMessage(strconv.FormatBool(b)), nil
	case reflect.Slice:
		var items []string
		for _, v := range vals {
			for _, part := range strings.Split(v, ",") {
				if part != "" {
					items = append(items, part)
				}
			}
		}
		raw, _ := json.Marshal(items)
		return raw, nil
	default:
		raw, _ := json.Marshal(v)
		return raw, nil
	}
}

// readBody reads a request body up to the size limit; a larger one is the
// documented 400 (docs/decisions.md#errors; REST and /mcp alike).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *capability.Error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodySize))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, capability.Invalid("", "request body is over %d bytes", s.opts.MaxBodySize)
		}
		return nil, capability.Invalid("", "could not read the request body")
	}
	return body, nil
}
