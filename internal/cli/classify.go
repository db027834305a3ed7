package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"earshot/classify"
	"earshot/internal/lines"
	"earshot/vocab"
)

// cmdClassify classifies JSON lines from stdin to stdout
// (docs/decisions.md#commands): one output line per input line, in order,
// flushed as it comes. A line that cannot be classified is answered with
// {"id","error"} and the rest go on; the exit code is 1 when any line failed,
// with a count on stderr, so a pipeline notices.
func cmdClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("classify", stderr, getenv, &cfg)
	which := new(string)
	fs.checkedVar(which, "classifier", "EARSHOT_CLASSIFIER", "auto", "`classifier`: auto (Ollama if a local one answers, else builtin), builtin or ollama", parseClassifier)
	var proj classify.Project
	var keywords string
	fs.StringVar(&proj.Name, "brand", "", "the `brand` the posts are about (relevance, and the Ollama prompt)")
	fs.StringVar(&proj.Website, "website", "", "the brand's `URL` (relevance, and the Ollama prompt)")
	fs.StringVar(&keywords, "keywords", "", "comma-separated brand `terms` for lines without their own \"keywords\"")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var defaults []string
	for _, k := range strings.Split(keywords, ",") {
		if k = strings.TrimSpace(k); k != "" {
			defaults = append(defaults, k)
		}
	}
	cc, err := classifierConfig(func(k string) string {
		if k == "EARSHOT_CLASSIFIER" {
			return *which // --classifier wins over the variable
		}
		return getenv(k)
	})
	if err != nil {
		return usagef("invalid value for %v", err)
	}
	c, err := classify.New(cc)
	if err != nil {
		return err
	}
	// Say which classifier auto chose when it found an Ollama (or one
	// without the model); with nothing listening, builtin is no news.
	if st := classify.Describe(c); st.Mode == "auto" && (st.Active != "builtin" || strings.Contains(st.Detail, "answers but")) {
		fmt.Fprintf(stderr, "earshot classify: %s classifier (%s)\n", st.Active, st.Detail)
	}
	n, failed, err := classifyLines(ctx, c, lineContext{project: proj, keywords: defaults}, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d lines failed", failed, n)
	}
	return nil
}

func parseClassifier(s string) (string, error) {
	if s != "auto" && s != "builtin" && s != "ollama" {
		return "", errors.New("must be auto, builtin or ollama")
	}
	return s, nil
}

// lineContext is what every line is classified with besides its own
// fields: the brand from --brand/--website, and --keywords for lines that
// bring none.
type lineContext struct {
	project  classify.Project
	keywords []string
}

// classifyIn is one input line; id is optional (echoed, null when absent).
type classifyIn struct {
	ID       json.RawMessage `json:"id"`
	Text     *string         `json:"text"`
	Source   string          `json:"source"`
	Keywords []string        `json:"keywords"`
}

// classifyOut is one output line; Error is set instead of the
// classification when the input line failed.
type classifyOut struct {
	ID         json.RawMessage `json:"id"`
	Category   string          `json:"category,omitempty"`
	Sentiment  string          `json:"sentiment,omitempty"`
	Urgency    *int            `json:"urgency,omitempty"`
	Summary    *string         `json:"ai_summary,omitempty"`
	IsRelevant *bool           `json:"is_relevant,omitempty"`
	// Which classifier answered: builtin, ollama:<model>, or
	// builtin(fallback) when Ollama was asked and did not answer.
	Classifier     string `json:"classifier,omitempty"`
	CategoryReason string `json:"category_reason,omitempty"`
	UrgencyReason  string `json:"urgency_reason,omitempty"`
	// Why the post is (not) about the brand, as stored with a mention.
	RelevanceReason string `json:"relevance_reason,omitempty"`
	Error           string `json:"error,omitempty"`
	fallback        string // why Ollama did not answer, when it did not
}

// maxClassifyLine bounds one input line (16 MiB).
const maxClassifyLine = 16 << 20

// classifyLines answers each non-blank line of r with one line on w and
// returns how many lines it answered and how many of them failed. It stops
// at the end of r, on a read or write error, or when ctx ends.
func classifyLines(ctx context.Context, c classify.Classifier, lc lineContext, r io.Reader, w, stderr io.Writer) (answered, failed int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	enc := json.NewEncoder(w) // one Write per line: nothing waits in a buffer
	enc.SetEscapeHTML(false)
	lastFallback, fallbacks := "", 0
	defer func() {
		if fallbacks > 1 {
			fmt.Fprintf(stderr, "earshot classify: %d of %d lines answered by the built-in classifier because Ollama did not\n", fallbacks, answered)
		}
	}()
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return answered, failed, err
		}
		raw, tooLong, rerr := lines.Read(br, maxClassifyLine)
		line := string(raw)
		if rerr != nil && rerr != io.EOF {
			return answered, failed, fmt.Errorf("read input: %w", rerr)
		}
		if tooLong || strings.TrimSpace(line) != "" {
			out := classifyLine(ctx, c, lc, line, tooLong, lineNo)
			if out.fallback != "" {
				// The answer is still a classification, but Ollama was
				// asked: say which lines it did not answer, and why (once
				// per reason in a row: while its circuit breaker is open
				// every line has the same one).
				if out.fallback != lastFallback {
					fmt.Fprintf(stderr, "earshot classify: line %d: %s; answered by the built-in classifier\n", lineNo, out.fallback)
				}
				fallbacks++
			}
			lastFallback = out.fallback
			answered++
			if out.Error != "" {
				failed++
			}
			if err := enc.Encode(out); err != nil {
				return answered, failed, fmt.Errorf("write output: %w", err)
			}
		}
		if rerr == io.EOF {
			return answered, failed, nil
		}
	}
}

func classifyLine(ctx context.Context, c classify.Classifier, lc lineContext, line string, tooLong bool, lineNo int) *classifyOut {
	null := json.RawMessage("null")
	if tooLong {
		return &classifyOut{ID: null, Error: fmt.Sprintf("line %d: longer than %d bytes", lineNo, maxClassifyLine)}
	}
	var in classifyIn
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return &classifyOut{ID: idOrNull(in.ID), Error: fmt.Sprintf("line %d: %s", lineNo, decodeProblem(err))}
	}
	id := idOrNull(in.ID)
	if _, err := dec.Token(); err != io.EOF {
		return &classifyOut{ID: id, Error: fmt.Sprintf("line %d: more than one JSON value on the line", lineNo)}
	}
	if in.Text == nil {
		return &classifyOut{ID: id, Error: fmt.Sprintf("line %d: missing \"text\"", lineNo)}
	}
	if in.Source != "" && !slices.Contains(vocab.Sources, in.Source) {
		return &classifyOut{ID: id, Error: fmt.Sprintf("line %d: unknown source %q (known: %s)", lineNo, in.Source, strings.Join(vocab.Sources, ", "))}
	}
	kw := in.Keywords
	if kw == nil {
		kw = lc.keywords
	}
	res, err := c.Classify(ctx, classify.Input{Text: *in.Text, Source: in.Source, Keywords: kw, Project: lc.project,
		Unsourced: true})
	if err != nil {
		return &classifyOut{ID: id, Error: fmt.Sprintf("line %d: %v", lineNo, err)}
	}
	out := &classifyOut{ID: id, Category: res.Category, Sentiment: res.Sentiment, Urgency: &res.Urgency,
		Summary: &res.Summary, IsRelevant: &res.IsRelevant, Classifier: res.Classifier,
		CategoryReason: res.CategoryReason, UrgencyReason: res.UrgencyReason, RelevanceReason: res.RelevanceReason}
	if res.Classifier == classify.FallbackName {
		out.fallback = cmp.Or(classify.FallbackReason(res), "ollama failed")
	}
	return out
}

// decodeProblem says what is wrong with an input line in the user's terms
// (the decoder's own text names Go types).
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return "a line must be a JSON object"
	case errors.As(err, &te):
		want := map[string]string{"text": "a string", "source": "a string", "keywords": "a list of strings"}[te.Field]
		return fmt.Sprintf("%q must be %s, not %s", te.Field, cmp.Or(want, "another type"), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ") + ` (a line has "id", "text", "source" and "keywords")`
	}
	return "invalid JSON: " + err.Error()
}

// idOrNull is the id to echo: null when the line has none.
func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}
