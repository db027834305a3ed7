package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"earshot/classify"
	"earshot/internal/lines"
	"earshot/vocab"
)

// cmdEval scores the classifiers on a user's own labelled posts: the
// built-in classifier always, and Ollama beside it when one is configured
// or answers locally. It is how a user decides whether Ollama is worth its
// time and cost for their brand (README, "Is Ollama worth it?").
func cmdEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("eval", stderr, getenv, &cfg)
	var file, format, keywords, ollama string
	var asJSON bool
	var proj classify.Project
	fs.StringVar(&file, "file", "", "labelled posts: a `FILE` (.csv or .jsonl), or - for stdin")
	fs.StringVar(&format, "format", "", "`csv` or jsonl (default: from the file name; jsonl for stdin)")
	fs.StringVar(&keywords, "keywords", "", "comma-separated brand `terms` for rows without their own keywords (relevance)")
	fs.StringVar(&proj.Name, "brand", "", "the `brand` the posts are about (relevance, and the Ollama prompt)")
	fs.StringVar(&proj.Website, "website", "", "the brand's `URL` (relevance, and the Ollama prompt)")
	fs.StringVar(&ollama, "ollama", "auto", "`when` to score Ollama too: auto (when OLLAMA_HOST is set or a local one answers), on, off")
	fs.BoolVar(&asJSON, "json", false, "print the scores as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if file == "" {
		return usagef("--file is required (a .csv or .jsonl of labelled posts, or - for stdin)")
	}
	if ollama != "auto" && ollama != "on" && ollama != "off" {
		return usagef("--ollama must be auto, on or off, not %q", ollama)
	}
	rows, err := readEvalFile(file, format, stdin)
	if err != nil {
		return err
	}
	classifiers, err := evalClassifiers(ollama, getenv)
	if err != nil {
		return err
	}
	lc := lineContext{project: proj, keywords: splitTerms(keywords)}
	out := evalOutput{Posts: len(rows)}
	for _, c := range classifiers {
		out.Classifiers = append(out.Classifiers, runEval(ctx, c, rows, lc))
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	scoreEval(&out, rows)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	writeEvalText(stdout, file, out)
	return nil
}

func splitTerms(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// evalClassifiers is the built-in classifier, and Ollama when asked for
// (on) or found (auto: OLLAMA_HOST set, or a local Ollama with the model
// answers).
func evalClassifiers(mode string, getenv func(string) string) ([]classify.Classifier, error) {
	out := []classify.Classifier{classify.NewBuiltin()}
	if mode == "off" {
		return out, nil
	}
	cc, err := classifierConfig(func(k string) string {
		if k == "EARSHOT_CLASSIFIER" {
			return "auto"
		}
		return getenv(k)
	})
	if err != nil {
		return nil, usagef("invalid value for %v", err)
	}
	if mode == "on" || strings.TrimSpace(cc.Ollama.Host) != "" {
		cc.Kind = "ollama" // asked for, or configured: score it, failures and all
	}
	c, err := classify.New(cc)
	if err != nil {
		return nil, err
	}
	if _, builtin := c.(*classify.Builtin); !builtin {
		out = append(out, c)
	}
	return out, nil
}

// evalRow is one labelled post; an empty label is not scored.
type evalRow struct {
	Text                string
	Category, Sentiment string
	Relevant            string // "true", "false" or ""
	Keywords            []string
	hasKeywords         bool
}

func readEvalFile(file, format string, stdin io.Reader) ([]evalRow, error) {
	var r io.Reader = stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("open labelled posts: %w", err)
		}
		defer f.Close()
		r = f
	}
	if format == "" {
		format = "jsonl"
		if strings.EqualFold(filepath.Ext(file), ".csv") {
			format = "csv"
		}
	}
	var rows []evalRow
	var err error
	switch format {
	case "csv":
		rows, err = readEvalCSV(r)
	case "jsonl", "json":
		rows, err = readEvalJSONL(r)
	default:
		return nil, usagef("--format must be csv or jsonl, not %q", format)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, usagef("%s holds no labelled posts", file)
	}
	return rows, nil
}

// readEvalCSV reads a CSV with a header row naming its columns: text, and
// any of category, sentiment, relevant, keywords (comma-separated).
func readEvalCSV(r io.Reader) ([]evalRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, usagef("read the CSV header: %v", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["text"]; !ok {
		return nil, usagef("the CSV header has no \"text\" column (columns: text, category, sentiment, relevant, keywords)")
	}
	get := func(rec []string, name string) (string, bool) {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return "", false
		}
		return strings.TrimSpace(rec[i]), true
	}
	var rows []evalRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, usagef("CSV: %v", err)
		}
		var row evalRow
		row.Text, _ = get(rec, "text")
		row.Category, _ = get(rec, "category")
		row.Sentiment, _ = get(rec, "sentiment")
		row.Relevant, _ = get(rec, "relevant")
		if kw, ok := get(rec, "keywords"); ok && kw != "" {
			row.Keywords, row.hasKeywords = splitTerms(kw), true
		}
		if err := row.normalise(); err != nil {
			return nil, usagef("row %d: %v", line, err)
		}
		rows = append(rows, row)
	}
}

// readEvalJSONL reads one JSON object a line: {"text", "category",
// "sentiment", "relevant" (true/false), "keywords" (a list)}.
func readEvalJSONL(r io.Reader) ([]evalRow, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var rows []evalRow
	for lineNo := 1; ; lineNo++ {
		raw, tooLong, err := lines.Read(br, maxClassifyLine)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read labelled posts: %w", err)
		}
		if tooLong {
			return nil, usagef("line %d: longer than %d bytes", lineNo, maxClassifyLine)
		}
		if strings.TrimSpace(string(raw)) != "" {
			var in struct {
				Text      *string  `json:"text"`
				Category  string   `json:"category"`
				Sentiment string   `json:"sentiment"`
				Relevant  *bool    `json:"relevant"`
				Keywords  []string `json:"keywords"`
			}
			if jerr := json.Unmarshal(raw, &in); jerr != nil {
				return nil, usagef("line %d: %v", lineNo, jerr)
			}
			if in.Text == nil {
				return nil, usagef("line %d: missing \"text\"", lineNo)
			}
			row := evalRow{Text: *in.Text, Category: in.Category, Sentiment: in.Sentiment, Keywords: in.Keywords, hasKeywords: in.Keywords != nil}
			if in.Relevant != nil {
				row.Relevant = strconv.FormatBool(*in.Relevant)
			}
			if nerr := row.normalise(); nerr != nil {
				return nil, usagef("line %d: %v", lineNo, nerr)
			}
			rows = append(rows, row)
		}
		if err == io.EOF {
			return rows, nil
		}
	}
}

// normalise checks the labels against the product's vocabulary.
func (r *evalRow) normalise() error {
	r.Category, r.Sentiment = strings.ToLower(r.Category), strings.ToLower(r.Sentiment)
	if r.Category != "" && !slices.Contains(vocab.Categories, r.Category) {
		return fmt.Errorf("unknown category %q (known: %s)", r.Category, strings.Join(vocab.Categories, ", "))
	}
	if r.Sentiment != "" && !slices.Contains(vocab.Sentiments, r.Sentiment) {
		return fmt.Errorf("unknown sentiment %q (known: %s)", r.Sentiment, strings.Join(vocab.Sentiments, ", "))
	}
	switch strings.ToLower(r.Relevant) {
	case "":
	case "true", "1", "yes", "y":
		r.Relevant = "true"
	case "false", "0", "no", "n":
		r.Relevant = "false"
	default:
		return fmt.Errorf("relevant must be true or false, not %q", r.Relevant)
	}
	if r.Category == "" && r.Sentiment == "" && r.Relevant == "" {
		return errors.New("no label (category, sentiment or relevant)")
	}
	return nil
}

// evalOutput is what `earshot eval --json` prints.
type evalOutput struct {
	Posts       int          `json:"posts"`
	Classifiers []evalResult `json:"classifiers"`
}

// evalResult is one classifier's scores and what they cost.
type evalResult struct {
	Classifier string  `json:"classifier"`
	Seconds    float64 `json:"seconds"`
	// Calls are the posts Ollama answered; Fallbacks the ones the
	// built-in classifier answered in its place.
	Calls        int                  `json:"calls"`
	Fallbacks    int                  `json:"fallbacks"`
	InputTokens  int                  `json:"input_tokens"`
	OutputTokens int                  `json:"output_tokens"`
	CostUSD      float64              `json:"cost_usd"`
	Tasks        map[string]evalScore `json:"tasks"`
	preds        []classify.Result
}

// evalScore is one task's scores (sentiment, category or relevant).
type evalScore struct {
	N        int         `json:"n"`
	Accuracy float64     `json:"accuracy"`
	MacroP   float64     `json:"macro_precision"`
	MacroR   float64     `json:"macro_recall"`
	MacroF1  float64     `json:"macro_f1"`
	Classes  []evalClass `json:"classes"`
	Labels   []string    `json:"labels"`
	Confuse  [][]int     `json:"confusion"` // [gold][predicted], indexed like labels
	report   classify.Report
}

type evalClass struct {
	Label     string  `json:"label"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int     `json:"support"`
}

var evalTasks = []struct {
	name   string
	labels []string
	gold   func(evalRow) string
	pred   func(classify.Result) string
}{
	{"sentiment", []string{"negative", "neutral", "positive"}, func(r evalRow) string { return r.Sentiment }, func(r classify.Result) string { return r.Sentiment }},
	{"category", vocab.Categories, func(r evalRow) string { return r.Category }, func(r classify.Result) string { return r.Category }},
	{"relevant", []string{"true", "false"}, func(r evalRow) string { return r.Relevant }, func(r classify.Result) string { return strconv.FormatBool(r.IsRelevant) }},
}

func runEval(ctx context.Context, c classify.Classifier, rows []evalRow, lc lineContext) evalResult {
	res := evalResult{Classifier: c.Name(), Tasks: map[string]evalScore{}}
	preds := make([]classify.Result, len(rows))
	start := time.Now()
	for i, row := range rows {
		kw := row.Keywords
		if !row.hasKeywords {
			kw = lc.keywords
		}
		r, err := c.Classify(ctx, classify.Input{Text: row.Text, Keywords: kw, Project: lc.project, Unsourced: true})
		if err != nil {
			break // only a cancelled context fails; the caller reports it
		}
		preds[i] = r
		switch {
		case r.Classifier == classify.FallbackName:
			res.Fallbacks++
		case strings.HasPrefix(r.Classifier, "ollama"):
			res.Calls++
		}
		res.InputTokens += r.InputTokens
		res.OutputTokens += r.OutputTokens
		res.CostUSD += r.CostUSD
	}
	res.Seconds = time.Since(start).Seconds()
	res.preds = preds
	return res
}

// scoreEval scores every classifier on every labelled task, over the same
// labels for all of them so their tables line up.
func scoreEval(out *evalOutput, rows []evalRow) {
	for _, t := range evalTasks {
		var gold []string
		var idx []int
		for i, row := range rows {
			if g := t.gold(row); g != "" {
				gold, idx = append(gold, g), append(idx, i)
			}
		}
		if len(gold) == 0 {
			continue
		}
		preds := make([][]string, len(out.Classifiers))
		var all []string
		for ci, c := range out.Classifiers {
			for _, i := range idx {
				preds[ci] = append(preds[ci], t.pred(c.preds[i]))
			}
			all = append(all, preds[ci]...)
		}
		labels := presentLabels(t.labels, gold, all)
		for ci := range out.Classifiers {
			out.Classifiers[ci].Tasks[t.name] = scoreOf(classify.Evaluate(gold, preds[ci], labels))
		}
	}
}

// presentLabels are the labels that occur in gold or pred, in the
// vocabulary's order: a class nobody labelled and nobody predicted would
// only pull the macro average down.
func presentLabels(labels, gold, pred []string) []string {
	var out []string
	for _, l := range labels {
		if slices.Contains(gold, l) || slices.Contains(pred, l) {
			out = append(out, l)
		}
	}
	return out
}

func scoreOf(r classify.Report) evalScore {
	s := evalScore{N: r.N, Accuracy: r.Accuracy, MacroP: r.MacroP, MacroR: r.MacroR, MacroF1: r.MacroF1, Labels: r.Labels, Confuse: r.Confusion, report: r}
	for _, c := range r.Classes {
		s.Classes = append(s.Classes, evalClass{c.Label, c.Precision, c.Recall, c.F1, c.Support})
	}
	return s
}

// writeEvalText prints, per task, the classifiers' precision, recall and
// F1 side by side, then each one's confusion table, then time and cost.
func writeEvalText(w io.Writer, file string, out evalOutput) {
	fmt.Fprintf(w, "earshot eval: %d labelled posts from %s\n", out.Posts, file)
	for _, t := range evalTasks {
		first, ok := out.Classifiers[0].Tasks[t.name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "\n%s (n=%d)\n%-16s %7s", t.name, first.N, "class", "support")
		for _, c := range out.Classifiers {
			fmt.Fprintf(w, "  %-22s", c.Classifier+" P/R/F1")
		}
		fmt.Fprintln(w)
		for i, cl := range first.Classes {
			fmt.Fprintf(w, "%-16s %7d", cl.Label, cl.Support)
			for _, c := range out.Classifiers {
				x := c.Tasks[t.name].Classes[i]
				fmt.Fprintf(w, "  %.3f %.3f %.3f       ", x.Precision, x.Recall, x.F1)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%-16s %7s", "macro", "")
		for _, c := range out.Classifiers {
			x := c.Tasks[t.name]
			fmt.Fprintf(w, "  %.3f %.3f %.3f       ", x.MacroP, x.MacroR, x.MacroF1)
		}
		fmt.Fprintf(w, "\n%-16s %7s", "accuracy", "")
		for _, c := range out.Classifiers {
			fmt.Fprintf(w, "  %-22.3f", c.Tasks[t.name].Accuracy)
		}
		fmt.Fprintln(w)
		for _, c := range out.Classifiers {
			fmt.Fprintf(w, "%s, %s confusion (rows gold, columns predicted):\n", t.name, c.Classifier)
			writeConfusion(w, c.Tasks[t.name])
		}
	}
	fmt.Fprintln(w, "\ntime and cost:")
	for _, c := range out.Classifiers {
		per := 1000 * c.Seconds / float64(max(out.Posts, 1))
		fmt.Fprintf(w, "  %-22s %8.3f s (%.2f ms/post)", c.Classifier, c.Seconds, per)
		if strings.HasPrefix(c.Classifier, "ollama") {
			fmt.Fprintf(w, ", %d calls, %d fallbacks, %d input + %d output tokens, $%.4f", c.Calls, c.Fallbacks, c.InputTokens, c.OutputTokens, c.CostUSD)
		} else {
			fmt.Fprint(w, ", no calls, no tokens, $0")
		}
		fmt.Fprintln(w)
	}
}

func writeConfusion(w io.Writer, s evalScore) {
	fmt.Fprintf(w, "  %-16s", "")
	for _, l := range s.Labels {
		fmt.Fprintf(w, " %*s", max(len(l), 6), l)
	}
	fmt.Fprintln(w)
	for i, l := range s.Labels {
		fmt.Fprintf(w, "  %-16s", l)
		for j, lj := range s.Labels {
			fmt.Fprintf(w, " %*d", max(len(lj), 6), s.Confuse[i][j])
		}
		fmt.Fprintln(w)
	}
}
