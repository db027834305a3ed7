package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
)

// mountAgents mounts /mcp, /api/v1/openapi.json and /docs: the faces for
// agents and integrators, all generated from the catalogue.
func (s *Server) mountAgents() {
	srv := NewMCPServer(s.svc, MCPOptions{Principal: PrincipalFromContext, Log: s.log, Version: s.opts.Version,
		Toolsets: s.opts.MCPToolsets, ReadOnly: s.opts.MCPReadOnly})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		// Stateless: every POST stands alone (no session to leak), and it is
		// the only mode that accepts the 2026 protocol versions.
		Stateless: true,
		// Every request needs a bearer credential, which a DNS-rebinding page
		// cannot send; the localhost Host check would only break reverse
		// proxies in front of a loopback listener.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        s.opts.MaxBodySize,
	})
	handle := func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) { s.serveMCP(w, r, h) }
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		s.Router.Handle(m, "/mcp", handle)
	}
	s.Router.GET("/api/v1/openapi.json", s.openAPIHandler())
	s.Router.GET("/docs", s.serveDocsIndex)
	s.Router.GET("/docs/reference/:name", s.serveDocsReference)
}

// serveMCP authenticates an MCP request exactly as REST does (bearer
// credential, Earshot-Project header, per-credential rate limit) and hands
// it to the streamable handler with the principal in the context.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, h http.Handler) {
	start := time.Now()
	id := requestIDOf(r)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
	if !s.originAllowed(r) {
		s.writeError(w, r, id, "", capability.Forbidden("Origin "+r.Header.Get("Origin")+" may not call /mcp: only pages of this server may (the MCP transport's Origin rule)"))
		return
	}
	p, err := s.AuthenticateToken(r.Context(), r.Header.Get("Authorization"), r.Header.Get("Earshot-Project"), "")
	if err != nil {
		e, known := capability.AsError(err, "project")
		if !known {
			s.log.Error("authenticate", "request_id", id, "err", err)
		}
		s.writeError(w, r, id, "", e)
		return
	}
	view, verr := s.mcpViewOf(r)
	if verr != nil {
		s.writeError(w, r, id, "", verr)
		return
	}
	r = r.WithContext(withMCPView(r.Context(), view))
	calls := 1
	if r.Method == http.MethodPost {
		// The documented 400 for a body over the limit, as on REST (the
		// SDK would answer 413 in plain text).
		body, apiErr := s.readBody(w, r)
		if apiErr == nil {
			if e := checkJSONBody(body); e != nil {
				// Text JSON-RPC cannot take (invalid UTF-8, a lone
				// surrogate, a duplicate key) is a JSON-RPC parse error,
				// so an MCP client sees a protocol answer, not a bare 400.
				s.writeRPCParseError(w, id, e)
				return
			}
		}
		if apiErr == nil {
			calls, apiErr = s.mcpCalls(body)
		}
		if apiErr != nil {
			s.writeError(w, r, id, "", apiErr)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	// Each JSON-RPC call takes its operation's cost (one token for most):
	// a batch costs the sum, so a batch cannot do more than the same calls
	// sent one by one.
	if !s.limiter.allowN(p.CredentialID(), calls) {
		wait := s.limiter.retryAfterN(p.CredentialID(), calls)
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second))))
		s.writeError(w, r, id, "", &capability.Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED", Message: "rate limit exceeded for this credential (each JSON-RPC call of a batch counts); retry after the Retry-After seconds"})
		return
	}
	s.setHeaders(w, id)
	h.ServeHTTP(w, r.WithContext(capability.WithPrincipal(r.Context(), p)))
	s.log.Debug("mcp request", "request_id", id, "method", r.Method, "duration_ms", float64(time.Since(start).Microseconds())/1000)
}

// mcpViewOf reads the connection's ?toolsets= and ?read_only= (the
// server's EARSHOT_MCP_TOOLSETS and EARSHOT_MCP_READ_ONLY when absent). A
// stateless client sends the same URL with every request, so the view
// holds for the whole connection.
func (s *Server) mcpViewOf(r *http.Request) (mcpView, *capability.Error) {
	v := mcpView{Toolsets: s.opts.MCPToolsets, ReadOnly: s.opts.MCPReadOnly}
	q := r.URL.Query()
	if q.Has("toolsets") {
		ts, err := capability.ParseToolsets(q.Get("toolsets"))
		if err != nil {
			return v, capability.Invalid("toolsets", "%s", err.Error())
		}
		v.Toolsets = ts
	}
	if q.Has("read_only") {
		ro, err := strconv.ParseBool(q.Get("read_only"))
		if err != nil {
			return v, capability.Invalid("read_only", "read_only must be true or false")
		}
		v.ReadOnly = ro
	}
	return v, nil
}

// originAllowed applies the streamable HTTP transport's Origin rule: a
// request sent by a browser page carries Origin, and only a page of this
// server (its Host, or its public base URL) may call /mcp, so another site
// cannot drive it from a user's browser. Agents outside a browser send no
// Origin. (A DNS-rebinding page has Origin equal to Host and passes this
// check; what stops it is the bearer credential, which it cannot send.)
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	if base, err := url.Parse(s.svc.Config.BaseURL); err == nil && strings.EqualFold(u.Scheme, base.Scheme) && strings.EqualFold(u.Host, base.Host) {
		return true
	}
	return false
}

// mcpCalls counts the JSON-RPC calls of a POST body: 1 for a single
// message, the length of a batch (protocol versions before 2025-06-18 allow
// batches). A batch over MaxMCPBatch is refused.
func (s *Server) mcpCalls(body []byte) (int, *capability.Error) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		return s.mcpCallCost(t), nil
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(t, &batch); err != nil {
		return 1, nil // not a valid batch: the SDK answers the parse error
	}
	if len(batch) > s.opts.MaxMCPBatch {
		return 0, capability.Invalid("", "a JSON-RPC batch may hold at most %d calls; this one holds %d (send several requests, or one call per request)", s.opts.MaxMCPBatch, len(batch))
	}
	cost := 0
	for _, call := range batch {
		cost += s.mcpCallCost(call)
	}
	return max(cost, 1), nil
}

// mcpCallCost is the rate-limit cost of one JSON-RPC call: a tools/call
// costs its operation's (capability.Cost), as on REST; anything else
// (initialize, tools/list, a notification) one token.
func (s *Server) mcpCallCost(raw []byte) int {
	var call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &call) != nil || call.Method != "tools/call" {
		return 1
	}
	if c, ok := s.svc.Capability(call.Params.Name); ok {
		return s.limiter.cost(c.Cost())
	}
	return 1
}

// writeRPCParseError answers a /mcp body the strict decoder refused with a
// JSON-RPC 2.0 parse error (-32700, id null: the id cannot be trusted),
// HTTP 400, the message led by the error code as on stdio.
func (s *Server) writeRPCParseError(w http.ResponseWriter, id string, e *capability.Error) {
	s.setHeaders(w, id)
	data := map[string]any{"code": e.Code, "request_id": id}
	if e.Param != "" {
		data["param"] = e.Param
	}
	s.writeJSON(w, http.StatusBadRequest, map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": -32700, "message": e.Code + ": " + e.Message, "data": data},
	})
}
