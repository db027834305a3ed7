package classify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"earshot/vocab"
)

// OllamaConfig configures the Ollama classifier. Zero values take defaults.
type OllamaConfig struct {
	Host        string        // Ollama base URL; default http://127.0.0.1:11434
	Model       string        // default DefaultOllamaModel
	Timeout     time.Duration // per attempt; default 60s
	Retries     int           // extra attempts after a failure; default 2, negative means none
	Concurrency int           // calls in flight at once; default 2
	// Prices in USD per 1,000 tokens, for Result.CostUSD.
	PricePer1KInput  float64
	PricePer1KOutput float64
	// HTTPClient overrides the HTTP client (its Timeout is kept as is).
	HTTPClient *http.Client
	// BreakerCooldown is how long the circuit breaker stays open after
	// Ollama was unreachable before one post probes it again; it doubles
	// after each failed probe up to 10 times its value. Default 30s.
	BreakerCooldown time.Duration
}

// DefaultOllamaModel is the model used when none is configured: small,
// widely pulled, and good at following a JSON schema.
const DefaultOllamaModel = "llama3.2"

// DefaultOllamaHost is where Ollama listens by default.
const DefaultOllamaHost = "http://127.0.0.1:11434"

// Ollama classifies with a local Ollama model and falls back to the built-in
// classifier whenever the model fails or answers out of schema. It is safe
// for concurrent use.
type Ollama struct {
	cfg       OllamaConfig
	client    *api.Client
	sem       chan struct{}
	builtin   *Builtin
	fallbacks atomic.Int64
	calls     atomic.Int64
	breaker   breaker
	// mode and detail say how New chose this classifier.
	mode, detail string
}

// NewOllama builds the classifier. It does not contact the server.
func NewOllama(cfg OllamaConfig) *Ollama {
	if cfg.Host == "" {
		cfg.Host = DefaultOllamaHost
	}
	if cfg.Model == "" {
		cfg.Model = DefaultOllamaModel
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 2
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2
	}
	if cfg.BreakerCooldown <= 0 {
		cfg.BreakerCooldown = 30 * time.Second
	}
	hc := cfg.HTTPClient
	if hc == nil {
		// The per-attempt context deadline bounds each call; the client
		// timeout is a backstop against a stuck connection.
		hc = &http.Client{Timeout: cfg.Timeout + 5*time.Second}
	}
	u := parseOllamaHost(cfg.Host)
	return &Ollama{
		cfg:     cfg,
		client:  api.NewClient(u, hc),
		sem:     make(chan struct{}, cfg.Concurrency),
		builtin: NewBuiltin(),
		breaker: breaker{base: cfg.BreakerCooldown, now: time.Now},
	}
}

// parseOllamaHost accepts what OLLAMA_HOST accepts: a URL, or host[:port]
// without a scheme.
func parseOllamaHost(h string) *url.URL {
	h = strings.TrimSpace(h)
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" {
		u, _ = url.Parse(DefaultOllamaHost)
		return u
	}
	if u.Port() == "" {
		port := "11434"
		if u.Scheme == "https" {
			port = "443"
		}
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	return u
}

// FallbackName is the classifier recorded on a post Ollama failed to
// classify and the built-in classifier answered.
const FallbackName = "builtin(fallback)"

// FallbackReason says why Ollama did not answer a fallback result ("ollama
// failed: …"), or "" for a result Ollama answered.
func FallbackReason(r Result) string {
	reason := ""
	for _, s := range r.Reasons {
		if strings.HasPrefix(s, "ollama failed") {
			reason = s
		}
	}
	return reason
}

// Name implements Classifier.
func (o *Ollama) Name() string { return "ollama:" + o.cfg.Model }

// Fallbacks counts classifications answered by the built-in classifier
// because Ollama failed.
func (o *Ollama) Fallbacks() int64 { return o.fallbacks.Load() }

// Calls counts requests sent to Ollama, retries included.
func (o *Ollama) Calls() int64 { return o.calls.Load() }

// llmAnswer is the JSON the model must return.
type llmAnswer struct {
	Category   *string `json:"category"`
	Sentiment  *string `json:"sentiment"`
	Urgency    *int    `json:"urgency"`
	Summary    *string `json:"ai_summary"`
	IsRelevant *bool   `json:"is_relevant"`
	// Optional: a model that leaves them out still answered.
	CategoryReason string `json:"category_reason"`
	UrgencyReason  string `json:"urgency_reason"`
}

// errPermanent marks failures a retry cannot fix.
var errPermanent = errors.New("permanent")

// errUnreachable marks a server that did not answer at all (refused,
// reset, timed out): the circuit breaker opens at once.
var errUnreachable = errors.New("unreachable")

// errNoModel marks a server without the configured model.
var errNoModel = errors.New("model not available")

// isConnError reports transport failures the client wraps without a
// net.Error in the chain.
func isConnError(err error) bool {
	s := err.Error()
	for _, p := range []string{"connection refused", "connection reset", "no such host", "EOF", "i/o timeout", "dial tcp"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// Classify implements Classifier. It returns an error only when ctx ends;
// every other failure is answered by the built-in classifier. While the
// circuit breaker is open (Ollama was unreachable) posts go straight to
// the built-in classifier, without waiting for a timeout each.
func (o *Ollama) Classify(ctx context.Context, in Input) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	probe, ok := o.breaker.allow()
	if !ok {
		return o.fallback(in, errors.New("unavailable, skipped while the circuit breaker is open (last error: "+o.breaker.lastError()+")"), 0, 0), nil
	}
	enabled := enabledCategories(in.Categories)
	req := o.request(in, enabled)
	var inTok, outTok int
	var lastErr error
	serverFailed := false // the last attempt failed in the server, not in the model's answer
	retries := o.cfg.Retries
	if probe {
		retries = 0 // a probe is one request
	}
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				o.breaker.abandon(probe)
				return Result{}, ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 200 * time.Millisecond):
			}
		}
		resp, err := o.chat(ctx, req)
		inTok += resp.PromptEvalCount
		outTok += resp.EvalCount
		serverFailed = err != nil
		if err == nil {
			// Ollama answered: whatever the model said, the server is up.
			o.breaker.success()
			var res Result
			res, err = o.parse(resp.Message.Content, in, enabled)
			if err == nil {
				res.Classifier = o.Name()
				o.account(&res, inTok, outTok)
				return res, nil
			}
		}
		if ctx.Err() != nil {
			o.breaker.abandon(probe)
			return Result{}, ctx.Err()
		}
		lastErr = err
		if errors.Is(err, errUnreachable) || errors.Is(err, errPermanent) {
			// A server that does not answer (refused, timed out) will
			// not answer a retry either, nor will a missing model
			// appear: no retries.
			break
		}
	}
	if serverFailed {
		// Unreachable, no model, or a failed probe opens the breaker at
		// once, so a dead Ollama costs one timeout, not one per post;
		// server errors after every retry open it when they repeat.
		o.breaker.failure(lastErr, probe || errors.Is(lastErr, errUnreachable) || errors.Is(lastErr, errNoModel))
	} else {
		o.breaker.abandon(probe)
	}
	return o.fallback(in, lastErr, inTok, outTok), nil
}

func (o *Ollama) fallback(in Input, why error, inTok, outTok int) Result {
	o.fallbacks.Add(1)
	res := o.builtin.classify(in)
	res.Classifier = FallbackName
	res.Reasons = append(res.Reasons, "ollama failed: "+why.Error())
	o.account(&res, inTok, outTok)
	return res
}

func (o *Ollama) account(r *Result, in, out int) {
	r.InputTokens, r.OutputTokens = in, out
	r.CostUSD = float64(in)/1000*o.cfg.PricePer1KInput + float64(out)/1000*o.cfg.PricePer1KOutput
}

func (o *Ollama) chat(ctx context.Context, req *api.ChatRequest) (api.ChatResponse, error) {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return api.ChatResponse{}, ctx.Err()
	}
	defer func() { <-o.sem }()
	o.calls.Add(1)
	actx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	var resp api.ChatResponse
	got := false
	err := o.client.Chat(actx, req, func(r api.ChatResponse) error {
		resp, got = r, true
		return nil
	})
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
			return resp, fmt.Errorf("%w: %w: ollama: %v (pull it with: ollama pull %s)", errPermanent, errNoModel, err, o.cfg.Model)
		}
		if errors.As(err, &se) && se.StatusCode >= 400 && se.StatusCode < 500 && se.StatusCode != http.StatusTooManyRequests && se.StatusCode != http.StatusRequestTimeout {
			return resp, fmt.Errorf("%w: ollama: %v", errPermanent, err)
		}
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) || isConnError(err) {
			return resp, fmt.Errorf("%w: ollama: %v", errUnreachable, err)
		}
		var ae api.AuthorizationError
		if errors.As(err, &ae) {
			return resp, fmt.Errorf("%w: ollama: %v", errPermanent, err)
		}
		return resp, fmt.Errorf("ollama: %w", err)
	}
	if !got {
		return resp, errors.New("ollama: empty response")
	}
	return resp, nil
}

func enabledHas(enabled []CategoryInfo, c string) bool {
	for _, e := range enabled {
		if e.Category == c {
			return true
		}
	}
	return false
}

func enabledCategories(cats []CategoryInfo) []CategoryInfo {
	var out []CategoryInfo
	for _, c := range vocab.Categories {
		info := CategoryInfo{Category: c, Label: c, Enabled: true}
		if cats != nil {
			found := false
			for _, ci := range cats {
				if ci.Category == c {
					info, found = ci, true
					if info.Label == "" {
						info.Label = c
					}
				}
			}
			if !found {
				info.Enabled = c == "other"
			}
		}
		if c == "other" {
			info.Enabled = true
		}
		if info.Enabled {
			out = append(out, info)
		}
	}
	return out
}

var defaultCategoryDescriptions = map[string]string{
	"bug_report":     "something in the product is broken: crashes, errors, features that do not work",
	"complaint":      "unhappy about service, price, billing, support or the company, without a specific defect",
	"misinformation": "a false or misleading claim about the brand",
	"product_idea":   "a feature request or suggestion for the product",
	"testimonial":    "praise or a recommendation of the product",
	"other":          "anything else",
}

func (o *Ollama) schema(enabled []CategoryInfo) json.RawMessage {
	cats := make([]string, len(enabled))
	for i, c := range enabled {
		cats[i] = c.Category
	}
	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"category":        map[string]any{"type": "string", "enum": cats},
			"sentiment":       map[string]any{"type": "string", "enum": vocab.Sentiments},
			"urgency":         map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
			"ai_summary":      map[string]any{"type": "string", "maxLength": MaxSummaryRunes},
			"is_relevant":     map[string]any{"type": "boolean"},
			"category_reason": map[string]any{"type": "string", "maxLength": maxReasonRunes},
			"urgency_reason":  map[string]any{"type": "string", "maxLength": maxReasonRunes},
		},
		"required": []string{"category", "sentiment", "urgency", "ai_summary", "is_relevant", "category_reason", "urgency_reason"},
	}
	b, _ := json.Marshal(s)
	return b
}

// maxReasonRunes bounds a reason sentence.
const maxReasonRunes = 160

// maxPromptText bounds the post text sent to the model.
const maxPromptText = 6000

func (o *Ollama) request(in Input, enabled []CategoryInfo) *api.ChatRequest {
	schema := o.schema(enabled)
	var sys bytes.Buffer
	sys.WriteString("You classify social-media posts and reviews that mention a brand, for the brand's team.\n")
	fmt.Fprintf(&sys, "Brand/project: %s\n", orDash(in.Project.Name))
	if in.Project.Website != "" {
		fmt.Fprintf(&sys, "Website: %s\n", in.Project.Website)
	}
	if in.Project.Description != "" {
		fmt.Fprintf(&sys, "About the brand: %s\n", in.Project.Description)
	}
	if len(in.Keywords) > 0 {
		fmt.Fprintf(&sys, "Monitored keywords: %s\n", strings.Join(in.Keywords, ", "))
	}
	if len(in.Project.Terms) > 0 {
		terms := in.Project.Terms
		if len(terms) > 40 {
			terms = terms[:40]
		}
		fmt.Fprintf(&sys, "Other terms of this project (products, competitors, own accounts): %s\n", strings.Join(terms, ", "))
	}
	sys.WriteString("\nCategories (choose exactly one):\n")
	for _, c := range enabled {
		d := c.Description
		if d == "" {
			d = defaultCategoryDescriptions[c.Category]
		}
		fmt.Fprintf(&sys, "- %s (%s): %s\n", c.Category, c.Label, d)
	}
	fmt.Fprintf(&sys, `
Fields:
- category: one of the categories above.
- sentiment: positive, neutral or negative, the author's attitude.
- urgency: 0-100, how soon the team should look; %d or more only for outages, data loss, security or legal problems, or angry posts with a large audience. Ideas and praise are rarely above 30.
- ai_summary: one sentence, at most 200 characters, plain text, what the post says.
- is_relevant: true if the post is really about this brand or its product, false if the keyword is used as an ordinary word or names something else.
- category_reason: one short sentence for the brand's team: why this category, quoting the post's own words (e.g. a service failure told as fact: "still no refund").
- urgency_reason: one short sentence: why this urgency (e.g. security report: "token stored in plain text").
A customer telling a service failure as a fact (waiting, never arrived, cancelled, charged twice, no answer, cannot log in) is negative, even without angry words.
`, vocab.UrgentThreshold)
	if enabledHas(enabled, "complaint") {
		sys.WriteString("Such a post is a complaint (or a bug_report when software is defective).\n")
	}
	if enabledHas(enabled, "testimonial") {
		sys.WriteString("Praise, including thanks for a solved problem, is a testimonial with urgency below 50.\n")
	}
	sys.WriteString("Answer with JSON only, matching this schema:\n")
	sys.Write(schema)
	text := in.Text
	if len(text) > maxPromptText {
		text = truncateUTF8(text, maxPromptText) + " …"
	}
	var user strings.Builder
	if in.Source != "" {
		fmt.Fprintf(&user, "Source: %s\n", in.Source)
	}
	if in.AuthorFollowers > 0 {
		fmt.Fprintf(&user, "Author followers: %d\n", in.AuthorFollowers)
	}
	if len(in.Engagement) > 0 {
		b, _ := json.Marshal(in.Engagement)
		fmt.Fprintf(&user, "Engagement: %s\n", b)
	}
	user.WriteString("Post:\n")
	user.WriteString(text)

	stream := false
	return &api.ChatRequest{
		Model:    o.cfg.Model,
		Stream:   &stream,
		Format:   schema,
		Think:    &api.ThinkValue{Value: false},
		Options:  map[string]any{"temperature": 0},
		Messages: []api.Message{{Role: "system", Content: sys.String()}, {Role: "user", Content: user.String()}},
	}
}

// reasonText cleans a model's reason: plain text, one line, bounded, and
// without a repeated "category:" prefix.
func reasonText(s string) string {
	s = cleanText(s)
	if !utf8.ValidString(s) {
		return ""
	}
	for _, c := range vocab.Categories {
		s = strings.TrimPrefix(s, c+": ")
	}
	return cutAtWord(s, maxReasonRunes)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parse validates the model's JSON against the schema and its enums.
func (o *Ollama) parse(content string, in Input, enabled []CategoryInfo) (Result, error) {
	var a llmAnswer
	content = strings.TrimSpace(content)
	if err := json.Unmarshal([]byte(content), &a); err != nil {
		return Result{}, fmt.Errorf("model output is not the JSON object asked for: %w", err)
	}
	if a.Category == nil || a.Sentiment == nil || a.Urgency == nil || a.Summary == nil || a.IsRelevant == nil {
		return Result{}, errors.New("model output misses a required field")
	}
	ok := false
	for _, c := range enabled {
		if c.Category == *a.Category {
			ok = true
		}
	}
	if !ok {
		if !slices.Contains(vocab.Categories, *a.Category) {
			return Result{}, fmt.Errorf("model category %q is not a category", *a.Category)
		}
		// A real category the project disabled is filed as other, as the
		// built-in classifier does (docs/decisions.md#monitors); asking again
		// would pay for the tokens twice.
		*a.Category = "other"
	}
	if !slices.Contains(vocab.Sentiments, *a.Sentiment) {
		return Result{}, fmt.Errorf("model sentiment %q is not allowed", *a.Sentiment)
	}
	if *a.Urgency < 0 || *a.Urgency > 100 {
		return Result{}, fmt.Errorf("model urgency %d out of 0..100", *a.Urgency)
	}
	summary := cleanText(*a.Summary)
	if summary == "" {
		summary = Summarize(in.Text, in.Keywords)
	}
	summary = cutAtWord(summary, MaxSummaryRunes)
	if !utf8.ValidString(summary) {
		summary = Summarize(in.Text, in.Keywords)
	}
	res := Result{
		Category:   *a.Category,
		Sentiment:  *a.Sentiment,
		Urgency:    *a.Urgency,
		Summary:    summary,
		IsRelevant: *a.IsRelevant,
		Reasons:    []string{"classified by " + o.Name()},
	}
	if res.Category == "testimonial" && res.Urgency >= 50 {
		res.Urgency = 40 // praise is never urgent, whoever classified it
	}
	res.CategoryReason = res.Category + ": " + cmp.Or(reasonText(a.CategoryReason), "chosen by "+o.Name())
	res.UrgencyReason = fmt.Sprintf("urgency %d: %s", res.Urgency, cmp.Or(reasonText(a.UrgencyReason), "rated by "+o.Name()))
	// Text given on its own that names none of the brand terms is not
	// about the brand, whatever the model says (as with the built-in
	// classifier).
	if in.Unsourced {
		if terms := brandTerms(in); len(terms) > 0 && !namesAny(strings.ToLower(in.Text), terms) {
			res.IsRelevant = false
			res.RelevanceReason = "not relevant: names none of the brand terms"
			res.Reasons = append(res.Reasons, res.RelevanceReason)
		}
	}
	// What the user taught through triage overrides the model when it is
	// confident.
	if in.Relevance != nil {
		s := in.Relevance.Score(in.Text, brandTerms(in))
		switch {
		case s <= -3:
			res.IsRelevant = false
			res.Reasons = append(res.Reasons, fmt.Sprintf("not relevant: triage model %+.1f", s))
		case s >= 3:
			res.IsRelevant = true
			res.Reasons = append(res.Reasons, fmt.Sprintf("relevant: triage model %+.1f", s))
		}
	}
	return res, nil
}

// Config chooses and configures the classifier. main reads it once from
// EARSHOT_CLASSIFIER, OLLAMA_HOST and the EARSHOT_OLLAMA_* variables (see
// the README) and passes it down.
type Config struct {
	// Kind is "auto" (also ""): Ollama when a local Ollama answers at
	// start and has the model, the built-in classifier otherwise;
	// "builtin"; or "ollama" (always Ollama, falling back per post).
	Kind   string
	Ollama OllamaConfig
	// DetectTimeout bounds auto's one question to Ollama (GET /api/tags);
	// default 2s.
	DetectTimeout time.Duration
}

// Kinds are the values of Config.Kind.
var Kinds = []string{"auto", "builtin", "ollama"}

// New builds the classifier cfg names. With auto it asks Ollama once, here.
func New(cfg Config) (Classifier, error) {
	switch cfg.Kind {
	case "builtin":
		b := NewBuiltin()
		b.mode = "builtin"
		return b, nil
	case "ollama":
		o := NewOllama(cfg.Ollama)
		o.mode = "ollama"
		return o, nil
	case "", "auto":
	default:
		return nil, fmt.Errorf("unknown classifier %q (want auto, builtin or ollama)", cfg.Kind)
	}
	detect := cfg.DetectTimeout
	if detect <= 0 {
		detect = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), detect)
	defer cancel()
	o := NewOllama(cfg.Ollama)
	if err := o.detect(ctx); err != nil {
		b := NewBuiltin()
		b.mode, b.detail = "auto", "no usable Ollama at start: "+err.Error()
		return b, nil
	}
	o.mode = "auto"
	o.detail = "Ollama answered at start with model " + o.cfg.Model
	return o, nil
}

// detect asks Ollama for its models and reports why it cannot be used.
func (o *Ollama) detect(ctx context.Context) error {
	list, err := o.client.List(ctx)
	if err != nil {
		return fmt.Errorf("%s does not answer (%v)", o.cfg.Host, err)
	}
	var names []string
	for _, m := range list.Models {
		for _, n := range []string{m.Name, m.Model} {
			if n == o.cfg.Model || strings.TrimSuffix(n, ":latest") == o.cfg.Model {
				return nil
			}
		}
		names = append(names, m.Name)
	}
	return fmt.Errorf("%s answers but has no model %q (have: %s; pull it with: ollama pull %s)", o.cfg.Host, o.cfg.Model, orDash(strings.Join(names, ", ")), o.cfg.Model)
}

// Status is what /healthz reports about the classifier.
type Status struct {
	Active    string        `json:"active"` // the classifier that answers: builtin or ollama:<model>
	Mode      string        `json:"mode"`   // EARSHOT_CLASSIFIER as resolved: auto, builtin or ollama
	Host      string        `json:"host,omitempty"`
	Detail    string        `json:"detail,omitempty"`
	Breaker   *BreakerState `json:"breaker,omitempty"`
	Calls     int64         `json:"calls"`     // requests sent to Ollama
	Fallbacks int64         `json:"fallbacks"` // posts the built-in classifier answered for Ollama
}

// Describe reports a classifier's status.
func Describe(c Classifier) Status {
	switch c := c.(type) {
	case *Ollama:
		b := c.breaker.snapshot()
		host := parseOllamaHost(c.cfg.Host)
		host.User = nil // OLLAMA_HOST may carry credentials (a proxy's basic auth)
		return Status{Active: c.Name(), Mode: cmp.Or(c.mode, "ollama"), Host: host.String(), Detail: redactUserinfo(c.detail),
			Breaker: &b, Calls: c.Calls(), Fallbacks: c.Fallbacks()}
	case *Builtin:
		return Status{Active: c.Name(), Mode: cmp.Or(c.mode, "builtin"), Detail: redactUserinfo(c.detail)}
	}
	return Status{Active: c.Name()}
}

// View is the status as /healthz shows it. Without detail (an anonymous
// caller: /healthz answers anyone) it keeps what a monitor needs (which
// classifier answers, the breaker's state, the counters) and drops the
// host, the start-up detail and the breaker's last error, whose dial
// errors name internal addresses. With detail (the operator's metrics
// token) those are shown, credentials in URLs removed.
func (s Status) View(detail bool) Status {
	if s.Breaker != nil {
		b := *s.Breaker
		b.LastError = redactUserinfo(b.LastError)
		if !detail {
			b.LastError = ""
		}
		s.Breaker = &b
	}
	s.Detail = redactUserinfo(s.Detail)
	if !detail {
		s.Host, s.Detail = "", ""
	}
	return s
}

// userinfoRE matches the user[:password]@ of a URL in an error text.
var userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s"]+@`)

// redactUserinfo removes credentials written in URLs from s.
func redactUserinfo(s string) string { return userinfoRE.ReplaceAllString(s, "$1") }
