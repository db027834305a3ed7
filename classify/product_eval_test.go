package classify

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"earshot/classify/internal/catmodel"
	"earshot/vocab"
)

// The tests in this file score the product's real output path: Builtin's
// Classify, the function the collector pipeline and `earshot classify`
// call, with every later rule applied (category-dependent sentiment,
// complaint rules, urgency). EVAL.md records their numbers.

var builtinForEval = NewBuiltin()

func classifyForEval(text string) Result {
	r, _ := builtinForEval.Classify(context.Background(), Input{Text: text})
	return r
}

// customerPost is one row of the self-written customer-to-brand dev set.
type customerPost struct {
	Sentiment, Category, Text string
}

func loadCustomerPosts(t testing.TB, file string) []customerPost {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "customer", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []customerPost
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.SplitN(line, "\t", 3)
		if len(p) != 3 || !slices.Contains(sentimentLabels, p[0]) || !slices.Contains(vocab.Categories, p[1]) {
			t.Fatalf("bad customer post line %q", line)
		}
		rows = append(rows, customerPost{p[0], p[1], p[2]})
	}
	return rows
}

// triage are the routing metrics: the share of complaints (gold
// complaint or bug_report) filed as complaint or bug_report, the share of
// praise (gold testimonial) filed as testimonial, and how well urgency
// ranks complaints above the rest (AUC, ties count half).
type triage struct {
	ComplaintsFiled, PraiseFiled, UrgencyAUC float64
	Complaints, Praise                       int
	PraiseOver50                             int
}

func isComplaint(c string) bool { return c == "complaint" || c == "bug_report" }

func scoreTriage(gold []string, pred []Result) triage {
	var tr triage
	var pos, neg []int
	for i, g := range gold {
		switch {
		case isComplaint(g):
			tr.Complaints++
			if isComplaint(pred[i].Category) {
				tr.ComplaintsFiled++
			}
			pos = append(pos, pred[i].Urgency)
		default:
			neg = append(neg, pred[i].Urgency)
		}
		if g == "testimonial" {
			tr.Praise++
			if pred[i].Category == "testimonial" {
				tr.PraiseFiled++
			}
			if pred[i].Urgency >= 50 {
				tr.PraiseOver50++
			}
		}
	}
	if tr.Complaints > 0 {
		tr.ComplaintsFiled /= float64(tr.Complaints)
	}
	if tr.Praise > 0 {
		tr.PraiseFiled /= float64(tr.Praise)
	}
	tr.UrgencyAUC = auc(pos, neg)
	return tr
}

func auc(pos, neg []int) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return 0
	}
	var s float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				s++
			case p == n:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

func (tr triage) String() string {
	return fmt.Sprintf("complaints filed as complaint/bug_report %.3f (n=%d); praise filed as testimonial %.3f (n=%d, %d with urgency ≥ 50); urgency AUC complaints vs rest %.3f",
		tr.ComplaintsFiled, tr.Complaints, tr.PraiseFiled, tr.Praise, tr.PraiseOver50, tr.UrgencyAUC)
}

// TestEvalCustomerPosts scores the self-written customer-to-brand posts
// (testdata/customer, see EVAL.md for what a self-written set can and
// cannot show).
func TestEvalCustomerPosts(t *testing.T) {
	for _, set := range []struct{ file, name string }{
		{"posts.tsv", "customer posts to brands, self-written development set (rules tuned while reading its errors)"},
		{"heldout.tsv", "customer posts to brands, self-written held-out set (written after the rules, scored, not tuned on)"},
	} {
		t.Run(set.file, func(t *testing.T) { evalCustomerPosts(t, set.file, set.name) })
	}
}

func evalCustomerPosts(t *testing.T, file, name string) {
	rows := loadCustomerPosts(t, file)
	var gs, ps, gc, pc []string
	var res []Result
	for _, r := range rows {
		out := classifyForEval(r.Text)
		res = append(res, out)
		gs, ps = append(gs, r.Sentiment), append(ps, out.Sentiment)
		gc, pc = append(gc, r.Category), append(pc, out.Category)
		if testing.Verbose() && os.Getenv("EVAL_SHOW_ERRORS") != "" && (out.Sentiment != r.Sentiment || out.Category != r.Category) {
			t.Logf("gold %s/%s got %s/%s u%d: %s | %s | %s", r.Sentiment, r.Category, out.Sentiment, out.Category, out.Urgency, r.Text, out.CategoryReason, out.UrgencyReason)
		}
	}
	sent := Evaluate(gs, ps, sentimentLabels)
	cat := Evaluate(gc, pc, vocab.Categories)
	tr := scoreTriage(gc, res)
	t.Logf("%s (n=%d)\nsentiment:\n%s\ncategory:\n%s\ntriage: %s", name, len(rows), sent, cat, tr)
	if sent.MacroF1 < 0.60 {
		t.Errorf("customer posts sentiment macro-F1 %.3f below 0.60", sent.MacroF1)
	}
	if tr.ComplaintsFiled < 0.75 || tr.PraiseFiled < 0.75 || tr.UrgencyAUC < 0.85 {
		t.Errorf("triage below target: %s", tr)
	}
	if tr.PraiseOver50 > 0 {
		t.Errorf("%d praise posts reached urgency 50", tr.PraiseOver50)
	}
}

// goEmotionsSentiment maps a row's emotion indexes to a sentiment with the
// paper's grouping; rows whose labels fall in two groups, or only in the
// ambiguous group, get "" (not scored; see EVAL.md).
func goEmotionsSentiment(labels string, names []string) string {
	pos := map[string]bool{"admiration": true, "amusement": true, "approval": true, "caring": true, "desire": true, "excitement": true,
		"gratitude": true, "joy": true, "love": true, "optimism": true, "pride": true, "relief": true}
	neg := map[string]bool{"anger": true, "annoyance": true, "disappointment": true, "disapproval": true, "disgust": true,
		"embarrassment": true, "fear": true, "grief": true, "nervousness": true, "remorse": true, "sadness": true}
	got := map[string]bool{}
	for _, s := range strings.Split(labels, ",") {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= len(names) {
			return ""
		}
		switch n := names[i]; {
		case pos[n]:
			got["positive"] = true
		case neg[n]:
			got["negative"] = true
		case n == "neutral":
			got["neutral"] = true
		default:
			got["ambiguous"] = true
		}
	}
	if len(got) != 1 || got["ambiguous"] {
		return ""
	}
	for k := range got {
		return k
	}
	return ""
}

type goEmotionsRow struct{ Text, Sentiment string }

func loadGoEmotions(t testing.TB, split string) []goEmotionsRow {
	t.Helper()
	dir := filepath.Join(sharedDataDir(), "goemotions")
	names, err := os.ReadFile(filepath.Join(dir, "emotions.txt"))
	if err != nil {
		t.Skipf("GoEmotions data missing (set EARSHOT_DATA_DIR): %v", err)
	}
	nl := strings.Fields(string(names))
	data, err := os.ReadFile(filepath.Join(dir, split+".tsv"))
	if err != nil {
		t.Skipf("GoEmotions %s missing: %v", split, err)
	}
	var rows []goEmotionsRow
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		p := strings.Split(line, "\t")
		if len(p) < 2 {
			continue
		}
		if s := goEmotionsSentiment(p[1], nl); s != "" {
			rows = append(rows, goEmotionsRow{p[0], s})
		}
	}
	return rows
}

func TestEvalSentimentGoEmotions(t *testing.T) {
	for _, split := range []string{"dev", "test"} {
		rows := loadGoEmotions(t, split)
		gold, pred := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			gold[i], pred[i] = r.Sentiment, classifyForEval(r.Text).Sentiment
		}
		rep := Evaluate(gold, pred, sentimentLabels)
		t.Logf("GoEmotions %s, grouped sentiment, single-group rows (n=%d):\n%s", split, len(rows), rep)
		if rep.MacroF1 < 0.55 {
			t.Errorf("GoEmotions %s macro-F1 %.3f below floor", split, rep.MacroF1)
		}
	}
}

// TestEvalProductMinibar runs the full output path with a category model
// trained on one Mini-BAR app and scores it on the other.
func TestEvalProductMinibar(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow (trains two models): run without -race and -short")
	}
	garmin := loadMinibar(t, "Garmin-Connect.en.csv")
	huawei := loadMinibar(t, "Huawei-Health.en.csv")
	for _, split := range []struct {
		name        string
		train, test []minibarRow
	}{
		{"train Garmin -> test Huawei", garmin, huawei},
		{"train Huawei -> test Garmin", huawei, garmin},
	} {
		b := &Builtin{model: trainCategoryModel(minibarDocs(split.train))}
		var gb, pb, gi, pi []string
		yn := func(v bool, l string) string {
			if v {
				return l
			}
			return "no"
		}
		for _, r := range split.test {
			out, _ := b.Classify(context.Background(), Input{Text: r.Text})
			gb, pb = append(gb, yn(r.Bug, "bug_report")), append(pb, yn(out.Category == "bug_report", "bug_report"))
			gi, pi = append(gi, yn(r.Idea, "product_idea")), append(pi, yn(out.Category == "product_idea", "product_idea"))
		}
		bug := Evaluate(gb, pb, []string{"bug_report"}).Class("bug_report")
		idea := Evaluate(gi, pi, []string{"product_idea"}).Class("product_idea")
		t.Logf("Mini-BAR product output, %s: bug_report P=%.3f R=%.3f F1=%.3f; product_idea P=%.3f R=%.3f F1=%.3f (single label per post: a PR+FR review counts as a miss for one of them)",
			split.name, bug.Precision, bug.Recall, bug.F1, idea.Precision, idea.Recall, idea.F1)
	}
}

func trainCategoryModel(docs []catmodel.Doc) *catmodel.Model {
	return catmodel.Train(docs, catmodel.DefaultOptions)
}
