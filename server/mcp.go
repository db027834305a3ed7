package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/vocab"
)

// The MCP binding: one tool per capability, generated from the catalogue at
// start-up. A tool takes the capability's fields (path, query and body
// together) as its arguments, is decoded and validated by the same
// Capability.Decode as REST, runs through Service.Execute, and answers the
// REST envelope {data, meta} (or {error, meta} with IsError) both as
// structured content and as JSON text.

// DefaultMCPCSVBytes caps the CSV an export tool returns to an agent; the
// REST export has no cap.
const DefaultMCPCSVBytes = 256 << 10

// MCPOptions configure the MCP binding.
type MCPOptions struct {
	Version string // server version reported to clients
	// Principal returns the caller of one request. Over HTTP it is the
	// principal the /mcp middleware authenticated and put in the context;
	// over stdio it is the one project key of `earshot mcp`.
	Principal func(ctx context.Context) (*capability.Principal, error)
	// Capabilities overrides the catalogue (tests); nil means all of svc's.
	Capabilities []*capability.Capability
	// MaxCSVBytes caps exported CSV text (0: DefaultMCPCSVBytes).
	MaxCSVBytes int
	Log         *slog.Logger
	// Toolsets the server loads (nil: all; EARSHOT_MCP_TOOLSETS), and
	// ReadOnly (EARSHOT_MCP_READ_ONLY) to offer only tools that change
	// nothing. Over HTTP, ?toolsets= and ?read_only= choose per connection.
	Toolsets []string
	ReadOnly bool
}

// PrincipalFromContext is the MCPOptions.Principal of the HTTP binding.
func PrincipalFromContext(ctx context.Context) (*capability.Principal, error) {
	if p := capability.PrincipalFrom(ctx); p != nil {
		return p, nil
	}
	return nil, capability.Unauthorized("send Authorization: Bearer <API key or session token>")
}

type mcpBinding struct {
	svc    *capability.Service
	opts   MCPOptions
	log    *slog.Logger
	byName map[string]*capability.Capability
}

var mcpInstructions = fmt.Sprintf(`Earshot monitors public posts that mention a brand, its products and its competitors (X, Reddit, YouTube, LinkedIn, Threads, Bluesky, Mastodon, Hacker News, news feeds, review sites) and classifies each one (category, sentiment, urgency 0-100, summary, relevance).
Every tool answers the same envelope as the REST API: {"data": …, "meta": {capability, requestId, idempotencyReplayed, docs}}; a failure sets isError and answers {"error": {code, message, param}, "meta": …}. Codes: VALIDATION_ERROR, UNAUTHORIZED, FORBIDDEN (the credential lacks the tool's scope), NOT_FOUND, CONFLICT, USAGE_LIMIT_REACHED, RATE_LIMITED, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE, INTERNAL, STORAGE_FULL (507 on REST: the server's disk is full, nothing was saved; retry with the same idempotency_key once space is freed).
Write tools accept an optional idempotency_key (8-128 characters): retrying with the same key and arguments never repeats the change and replays the first answer.
Urgency %d and above is worth interrupting a person for. Never call delete_project without the user's explicit consent in this conversation.`, vocab.UrgentThreshold)

// NewMCPServer builds the MCP server of the catalogue: tools, the triage and
// report prompts, and the earshot://mentions/{id} resource template.
func NewMCPServer(svc *capability.Service, opts MCPOptions) *mcp.Server {
	if opts.Capabilities == nil {
		opts.Capabilities = svc.Capabilities()
	}
	if opts.MaxCSVBytes <= 0 {
		opts.MaxCSVBytes = DefaultMCPCSVBytes
	}
	if opts.Version == "" {
		opts.Version = capability.APIVersion
	}
	if opts.Principal == nil {
		opts.Principal = PrincipalFromContext
	}
	log := opts.Log
	if log == nil {
		log = svc.Log
	}
	b := &mcpBinding{svc: svc, opts: opts, log: log, byName: map[string]*capability.Capability{}}
	for _, c := range opts.Capabilities {
		b.byName[c.Name] = c
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "earshot", Title: "Earshot brand-mention monitor", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		// No logging capability: logs go to stderr, and 2026 protocol
		// versions deprecate it.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	for _, c := range opts.Capabilities {
		srv.AddTool(mcpTool(c), b.toolHandler(c))
	}
	srv.AddReceivingMiddleware(b.leanList)
	b.addPrompts(srv)
	b.addResources(srv)
	return srv
}

// idempotencyKeyArg is the extra argument of write tools
// (docs/decisions.md#idempotency).
const idempotencyKeyArg = "idempotency_key"

// mcpTool is the tool definition of c.
func mcpTool(c *capability.Capability) *mcp.Tool {
	schema := inputSchema(c.Fields, nil)
	if c.Write {
		props := schema["properties"].(map[string]any)
		if _, clash := props[idempotencyKeyArg]; !clash {
			props[idempotencyKeyArg] = map[string]any{
				"type": "string", "minLength": 8, "maxLength": 128,
				"description": "Optional. A unique value (e.g. a UUID) per intended change: a retry with the same key and arguments within 24 hours returns the first answer (meta.idempotencyReplayed true) instead of repeating the change.",
			}
		}
	}
	title := c.Title
	if title == "" {
		title = c.Name
	}
	ann := &mcp.ToolAnnotations{Title: title, ReadOnlyHint: !c.Write, IdempotentHint: c.Idempotent || !c.Write, OpenWorldHint: new(bool)}
	if c.Write {
		d := c.Destructive
		ann.DestructiveHint = &d
	}
	return &mcp.Tool{Name: c.Name, Title: title, Description: toolDescription(c), InputSchema: schema, OutputSchema: mcpOutputSchema(c), Annotations: ann}
}

// mcpOutputSchema is the schema of c's structured result: the REST
// envelope, whose data is c's output type (or the CSV text of an export).
// error and meta, the same for every tool, are described once in the
// server's instructions rather than in every tool of tools/list.
func mcpOutputSchema(c *capability.Capability) map[string]any {
	data := map[string]any{"type": "object"}
	switch {
	case isStreamed(c):
		data = outputSchema(reflect.TypeFor[mcpCSV]())
	case c.Out != nil:
		data = outputSchema(c.Out)
	}
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"data": withoutDescriptions(data)},
	}
}

// withoutDescriptions drops the field descriptions of an output schema:
// every tools/list carries them into an agent's context, and the fields'
// meanings are in the tool descriptions and the OpenAPI document.
func withoutDescriptions(s map[string]any) map[string]any {
	delete(s, "description")
	for _, k := range []string{"properties", "additionalProperties", "items"} {
		switch v := s[k].(type) {
		case map[string]any:
			if k == "properties" {
				for _, p := range v {
					if ps, ok := p.(map[string]any); ok {
						withoutDescriptions(ps)
					}
				}
			} else {
				withoutDescriptions(v)
			}
		}
	}
	return s
}

func toolDescription(c *capability.Capability) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(c.Description))
	fmt.Fprintf(&b, "\n\nRequired scope: %s.", c.Scope)
	if c.SessionOnly {
		b.WriteString(" Needs a dashboard session credential; API keys are refused (FORBIDDEN).")
	}
	if c.Write {
		b.WriteString(" Changes data: pass idempotency_key so a retry after a timeout cannot apply the change twice.")
	} else {
		b.WriteString(" Read-only.")
	}
	if isStreamed(c) {
		fmt.Fprintf(&b, " Returns the CSV text in data.csv (capped for agents; data.truncated tells when rows were left out — use REST %s %s for the full file).", c.Method, c.Path)
	}
	return b.String()
}

func (b *mcpBinding) toolHandler(c *capability.Capability) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		// Over HTTP the request id is the response's X-Request-Id.
		id := requestIDFrom(ctx)
		if id == "" {
			id = newRequestID()
		}
		defer func() {
			if r := recover(); r != nil {
				b.log.Error("panic in MCP tool", "request_id", id, "capability", c.Name, "panic", r, "stack", string(debug.Stack()))
				res, err = b.errorResult(c, id, capability.Internal()), nil
			}
		}()
		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		res, status := b.call(ctx, c, id, raw)
		b.log.Info("mcp tool call", "request_id", id, "capability", c.Name, "status", status,
			"duration_ms", float64(time.Since(start).Microseconds())/1000)
		return res, nil
	}
}

// call authenticates, decodes, executes and wraps one tool call; it returns
// the result and the HTTP-equivalent status for the log.
func (b *mcpBinding) call(ctx context.Context, c *capability.Capability, id string, raw json.RawMessage) (*mcp.CallToolResult, int) {
	fail := func(e *capability.Error) (*mcp.CallToolResult, int) { return b.errorResult(c, id, e), e.Status }
	p, err := b.opts.Principal(ctx)
	if err != nil {
		e, known := capability.AsError(err, "project")
		if !known {
			b.log.Error("mcp authenticate", "request_id", id, "err", err)
		}
		return fail(e)
	}
	if ok, why := b.view(ctx).loaded(c); !ok {
		return fail(capability.Forbidden(why))
	}
	if err := c.Authorize(p); err != nil {
		e, _ := capability.AsError(err, "")
		return fail(e)
	}
	args := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &args); err != nil || args == nil {
			return fail(capability.Invalid("", "arguments must be a JSON object"))
		}
	}
	idemKey := ""
	if c.Write {
		if v, ok := args[idempotencyKeyArg]; ok {
			if err := json.Unmarshal(v, &idemKey); err != nil {
				return fail(capability.Invalid(idempotencyKeyArg, "idempotency_key must be a string"))
			}
			delete(args, idempotencyKeyArg)
			if n := len([]rune(idemKey)); n < 8 || n > 128 {
				return fail(capability.Invalid(idempotencyKeyArg, "idempotency_key must be 8 to 128 characters"))
			}
		}
	}
	in, err := c.Decode(args, nil)
	if err != nil {
		var e *capability.Error
		if !errors.As(err, &e) {
			e = capability.Invalid("", "%s", err.Error())
		}
		return fail(e)
	}
	out := b.svc.Execute(ctx, c, p, in, idemKey)
	if out.Err != nil {
		if out.Cause != nil {
			b.log.Error("capability failed", "request_id", id, "capability", c.Name, "err", out.Cause)
		}
		if out.Err.Param == "Idempotency-Key" {
			out.Err.Param = idempotencyKeyArg
		}
		return b.errorResultReplayed(c, id, out.Err, out.Replayed), out.Err.Status
	}
	data := out.Data
	if st, ok := data.(Streamer); ok {
		d, err := b.csvData(ctx, st)
		if err != nil {
			b.log.Error("mcp export failed", "request_id", id, "capability", c.Name, "err", err)
			return fail(capability.Internal())
		}
		data = d
	}
	env := map[string]any{
		"data": data,
		"meta": meta{Capability: c.Name, RequestID: id, IdempotencyReplayed: out.Replayed, Docs: b.svc.DocsURL(c.Name)},
	}
	return jsonResult(env, false), out.Status
}

func (b *mcpBinding) errorResult(c *capability.Capability, id string, e *capability.Error) *mcp.CallToolResult {
	return b.errorResultReplayed(c, id, e, false)
}

// errorResultReplayed is errorResult for an error that may be a replayed
// stored answer (docs/decisions.md#idempotency: its meta says so).
func (b *mcpBinding) errorResultReplayed(c *capability.Capability, id string, e *capability.Error, replayed bool) *mcp.CallToolResult {
	return jsonResult(map[string]any{
		"error": e,
		"meta":  errorMeta{Capability: c.Name, RequestID: id, IdempotencyReplayed: replayed, Docs: b.svc.DocsURL(c.Name)},
	}, true)
}

// jsonResult puts v in a tool result as structured content and as the same
// JSON in a text block, for clients that read only text.
func jsonResult(v any, isError bool) *mcp.CallToolResult {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		buf.WriteString(`{"error":{"code":"INTERNAL","message":"could not encode the result"},"meta":{}}`)
		isError = true
	}
	body := bytes.TrimSpace(buf.Bytes())
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
		IsError:           isError,
	}
}

// mcpCSV is the data of an export tool: CSV text an agent can read, cut at
// a row boundary when it would exceed the cap.
type mcpCSV struct {
	ContentType string `json:"content_type"`
	Filename    string `json:"filename"`
	CSV         string `json:"csv"`
	Rows        int    `json:"rows"` // data rows in csv, header excluded
	Truncated   bool   `json:"truncated"`
	Note        string `json:"note,omitempty"`
}

// capWriter keeps the first max bytes and then reports it is full, which
// stops the export early.
type capWriter struct {
	buf  bytes.Buffer
	max  int
	full bool
}

var errCSVFull = errors.New("csv cap reached")

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max + 1 - w.buf.Len() // one byte over tells "there was more"
	if len(p) > room {
		w.buf.Write(p[:max(room, 0)])
		w.full = true
		return 0, errCSVFull
	}
	return w.buf.Write(p)
}

func (b *mcpBinding) csvData(ctx context.Context, st Streamer) (*mcpCSV, error) {
	w := &capWriter{max: b.opts.MaxCSVBytes}
	if err := st.Stream(ctx, w); err != nil && !errors.Is(err, errCSVFull) && !w.full {
		return nil, err
	}
	text := w.buf.String()
	truncated := w.full || len(text) > b.opts.MaxCSVBytes
	// Count whole records (quoted fields may hold newlines) and, when cut,
	// end at the last complete one.
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	records, end := 0, int64(0)
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			break
		}
		off := r.InputOffset()
		if truncated && (off >= int64(len(text)) || off > int64(b.opts.MaxCSVBytes)) {
			break // possibly partial last record
		}
		records, end = records+1, off
	}
	if truncated {
		text = text[:end]
	}
	out := &mcpCSV{ContentType: st.ContentType(), Filename: st.Filename(), CSV: text, Rows: max(records-1, 0), Truncated: truncated}
	if truncated {
		out.Note = fmt.Sprintf("cut at %d bytes for the agent; narrow the filters or download the full file over REST", b.opts.MaxCSVBytes)
	}
	return out, nil
}

// ---- prompts ----

func (b *mcpBinding) addPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{
		Name:        "triage_new_mentions",
		Title:       "Triage new mentions",
		Description: "Walk the project's new mentions, set each one's status with update_mention_status, and escalate those with urgency " + strconv.Itoa(vocab.UrgentThreshold) + " or more.",
		Arguments: []*mcp.PromptArgument{
			{Name: "monitor_id", Description: "Only mentions of this monitor (optional)."},
			{Name: "limit", Description: "How many mentions to triage at most (default 50)."},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		if req != nil && req.Params != nil && req.Params.Arguments != nil {
			args = req.Params.Arguments
		}
		limit := "50"
		if v := strings.TrimSpace(args["limit"]); v != "" {
			limit = v
		}
		filter := `status "new"`
		if m := strings.TrimSpace(args["monitor_id"]); m != "" {
			filter += fmt.Sprintf(` and monitor_id %q`, m)
		}
		text := fmt.Sprintf(`Triage the new brand mentions of this Earshot project, at most %s of them.

1. Call list_mentions with %s (limit 50, newest first). Follow data.nextCursor while data.hasMore is true and you are under the limit.
2. For each mention, read text, source, author_handle, category, sentiment, urgency, ai_summary and is_relevant, and decide:
   - "ignored" when it is not really about the brand (is_relevant false, a name clash, spam);
   - "done" when nothing needs doing (a neutral or positive mention, a testimonial);
   - "reviewed" when a person should act on it (a complaint, a bug report, misinformation, a product idea worth answering).
   Set it with update_mention_status (id, status). Pass an idempotency_key per mention (e.g. "triage-" + the mention id + "-" + the status) so a retry is safe.
3. Escalate every mention with urgency %d or more: do not mark it done or ignored; set it "reviewed" and list it first in your answer with its url, source, sentiment, category, urgency and a one-line reason why someone should look now.
4. Finish with a short summary: how many mentions you set to each status, the escalations, and any pattern you noticed (the same bug reported several times, a wave of negative sentiment on one source).

Do not change anything but mention statuses.`, limit, filter, vocab.UrgentThreshold)
		return &mcp.GetPromptResult{
			Description: "Triage new mentions and escalate urgent ones",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	})
	srv.AddPrompt(&mcp.Prompt{
		Name:        "weekly_brand_report",
		Title:       "Weekly brand report",
		Description: "Summarise the last 7 days of mentions: volume, sentiment, categories, the most urgent mentions and share of voice.",
		Arguments: []*mcp.PromptArgument{
			{Name: "audience", Description: "Who reads the report, e.g. \"support team\" or \"executives\" (optional)."},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		audience := "the team that owns the brand"
		if req != nil && req.Params != nil {
			if a := strings.TrimSpace(req.Params.Arguments["audience"]); a != "" {
				audience = a
			}
		}
		text := fmt.Sprintf(`Write a weekly brand report for %s, covering the last 7 days (UTC) of this Earshot project. Only read; change nothing.

1. Volume: call list_mentions with date_preset "last_7_days" (limit 100) and follow data.nextCursor while data.hasMore is true. Count mentions per day and per source; say whether volume rose or fell compared with what the week shows.
2. Sentiment: the share of positive, neutral and negative mentions, and the sources where negative sentiment concentrates.
3. Categories: counts per category (%s), with one representative quote each for the main ones.
4. Top urgent: the five mentions with the highest urgency (%d and above first), each with url, source, urgency, category and ai_summary, and their current status.
5. Share of voice: call get_share_of_voice for the same window (if the tool exists) and report the own brand's share against each competitor group, with the trend over the week.
6. Bursts: call list_spikes with since set to 7 days ago (if the tool exists). For each spike (at most five, the largest score first) say when it was (UTC hour), which monitor or keyword group, volume or negative, and how far above its usual count; call get_spike to say in one sentence what the mentions behind it were about.
7. Close with three recommendations. Keep the report under 500 words, in Markdown, with a small table for the numbers.

Leave out mentions with is_relevant false from every count but say how many there were.`, audience, strings.Join(vocab.Categories, ", "), vocab.UrgentThreshold)
		return &mcp.GetPromptResult{
			Description: "Weekly brand report",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	})
}

// ---- resources ----

const mentionURIPrefix = "earshot://mentions/"

// addResources exposes each mention as earshot://mentions/{id}, read through
// the get_mention capability (so scope and tenancy are the tool's).
func (b *mcpBinding) addResources(srv *mcp.Server) {
	var get *capability.Capability
	for _, c := range b.opts.Capabilities {
		if c.Name == "get_mention" {
			get = c
		}
	}
	if get == nil {
		return
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "mention",
		Title:       "Mention",
		Description: "One collected mention with its AI classification and triage status, as JSON (the data of get_mention).",
		URITemplate: mentionURIPrefix + "{id}",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, mentionURIPrefix)
		if !ok || id == "" || strings.Contains(id, "/") {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if u, err := url.PathUnescape(id); err == nil {
			id = u
		}
		rid := newRequestID()
		args := map[string]json.RawMessage{}
		raw, _ := json.Marshal(id)
		args["id"] = raw
		body, _ := json.Marshal(args)
		res, status := b.call(ctx, get, rid, body)
		if res.IsError {
			if status == 404 || status == 400 {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			// A JSON-RPC error with the tool's code and message: -32603
			// for an internal error, -32001 (server-defined) otherwise.
			var env struct {
				Error capability.Error `json:"error"`
			}
			json.Unmarshal(res.StructuredContent.(json.RawMessage), &env)
			code := int64(-32001)
			if status >= 500 {
				code = jsonrpc.CodeInternalError
			}
			return nil, &jsonrpc.Error{Code: code, Message: env.Error.Code + ": " + env.Error.Message}
		}
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(res.StructuredContent.(json.RawMessage), &env)
		out := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(env.Data)}}}
		out.CacheScope = "private" // one tenant's data: not for shared caches
		return out, nil
	})
}
