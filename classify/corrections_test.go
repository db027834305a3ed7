package classify

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"earshot/vocab"
)

// A few corrections teach the posts like them, and leave the rest alone.
func TestCorrectionsTeach(t *testing.T) {
	c := NewBuiltin()
	post := "@Acme the courier left my parcel with the neighbour again"
	unrelated := "@Acme thank you, the new dashboard is a game changer, highly recommend"
	ctx := context.Background()
	before, _ := c.Classify(ctx, Input{Text: post, Keywords: []string{"Acme"}})
	other, _ := c.Classify(ctx, Input{Text: unrelated, Keywords: []string{"Acme"}})
	if before.Category == "misinformation" {
		t.Fatalf("pick another category: the rules already say %s", before.Category)
	}
	m := TrainCorrections([]Correction{
		{Text: "@Acme courier left the parcel with a neighbour", Category: "misinformation", Sentiment: "neutral"},
		{Text: "@Acme my parcel was left with my neighbour by the courier", Category: "misinformation", Sentiment: "neutral"},
		{Text: "@Acme love the new reports page", Category: "testimonial", Sentiment: "positive"},
	})
	if m.Count() != 3 {
		t.Fatalf("count %d", m.Count())
	}
	after, _ := c.Classify(ctx, Input{Text: post, Keywords: []string{"Acme"}, Corrections: m})
	if after.Category != "misinformation" || after.Sentiment != "neutral" || !strings.Contains(after.CategoryReason, "people filed as misinformation") {
		t.Errorf("after corrections: %s/%s (%s), before %s/%s", after.Category, after.Sentiment, after.CategoryReason, before.Category, before.Sentiment)
	}
	if got, _ := c.Classify(ctx, Input{Text: unrelated, Keywords: []string{"Acme"}, Corrections: m}); got.Category != other.Category || got.Sentiment != other.Sentiment {
		t.Errorf("an unrelated post moved: %s/%s, was %s/%s", got.Category, got.Sentiment, other.Category, other.Sentiment)
	}
	// A category the project turned off is never produced.
	cats := []CategoryInfo{{Category: "misinformation", Enabled: false}, {Category: "complaint", Enabled: true}, {Category: "bug_report", Enabled: true},
		{Category: "product_idea", Enabled: true}, {Category: "testimonial", Enabled: true}}
	if got, _ := c.Classify(ctx, Input{Text: post, Keywords: []string{"Acme"}, Corrections: m, Categories: cats}); got.Category == "misinformation" {
		t.Errorf("a disabled category was learned: %s", got.Category)
	}
	if TrainCorrections(nil) != nil {
		t.Error("no corrections, a model")
	}
}

// labelledPost is one row of a learning-curve set.
type labelledPost struct{ text, category, sentiment string }

// TestCorrectionLearningCurve measures issue 28's question: after N
// corrections per class, how accurate is the classifier on the rest? The
// corrections are the first N posts of each class in hash order (a fixed,
// arbitrary order); the rest are scored. Printed with -v; EVAL.md records
// the curve.
func TestCorrectionLearningCurve(t *testing.T) {
	var cust []labelledPost
	for _, f := range []string{"posts.tsv", "heldout.tsv"} {
		for _, r := range loadCustomerPosts(t, f) {
			if !heldOut(r.Text) { // the threshold is tuned: dev rows only
				cust = append(cust, labelledPost{r.Text, r.Category, r.Sentiment})
			}
		}
	}
	sets := []struct {
		name string
		rows []labelledPost
	}{{"customer posts, dev rows", cust}}
	for _, app := range []string{"Garmin-Connect.en.csv", "Huawei-Health.en.csv"} {
		var rows []labelledPost
		for _, r := range loadMinibar(t, app) {
			if r.Bug && r.Idea {
				continue // single-label product output
			}
			c := "other"
			switch {
			case r.Bug:
				c = "bug_report"
			case r.Idea:
				c = "product_idea"
			}
			rows = append(rows, labelledPost{r.Text, c, ""})
		}
		sets = append(sets, struct {
			name string
			rows []labelledPost
		}{"Mini-BAR " + strings.TrimSuffix(app, ".en.csv") + " (categories bug/idea/other)", rows})
	}
	for _, s := range sets {
		var b strings.Builder
		fmt.Fprintf(&b, "%s (n=%d): N corrections per class -> on the rest, category accuracy / macro-F1 (rules alone on the same rows)", s.name, len(s.rows))
		if s.rows[0].sentiment != "" {
			b.WriteString("; sentiment accuracy (rules alone)")
		}
		b.WriteString("\n")
		for _, n := range []int{0, 1, 2, 5, 10, 20, 40} {
			with, rest := learningPoint(s.rows, n, true)
			alone, _ := learningPoint(s.rows, n, false)
			fmt.Fprintf(&b, "  N=%-3d rest=%-5d category %.3f / %.3f (%.3f / %.3f)", n, rest, with.catAcc, with.catF1, alone.catAcc, alone.catF1)
			if s.rows[0].sentiment != "" {
				fmt.Fprintf(&b, "; sentiment %.3f (%.3f)", with.sentAcc, alone.sentAcc)
			}
			b.WriteString("\n")
			if n == 10 && with.catAcc < alone.catAcc-0.01 {
				t.Errorf("%s: 10 corrections per class lowered category accuracy on the rest: %.3f, rules alone %.3f", s.name, with.catAcc, alone.catAcc)
			}
		}
		t.Log(b.String())
	}
}

type curvePoint struct{ catAcc, catF1, sentAcc float64 }

// learningPoint trains on the first n posts of each class (hash order) and
// scores the rest, with the corrections or (learn false) without.
func learningPoint(rows []labelledPost, n int, learn bool) (curvePoint, int) {
	order := slices.Clone(rows)
	slices.SortFunc(order, func(x, y labelledPost) int {
		hx, hy := sha256.Sum256([]byte(x.text)), sha256.Sum256([]byte(y.text))
		return strings.Compare(string(hx[:]), string(hy[:]))
	})
	taken := map[string]int{}
	var corr []Correction
	var test []labelledPost
	for _, r := range order {
		if taken[r.category] < n {
			taken[r.category]++
			corr = append(corr, Correction{Text: r.text, Category: r.category, Sentiment: r.sentiment})
			continue
		}
		test = append(test, r)
	}
	var m *CorrectionModel
	if learn {
		m = TrainCorrections(corr)
	}
	c := NewBuiltin()
	var gc, pc []string
	okS := 0
	for _, r := range test {
		out, _ := c.Classify(context.Background(), Input{Text: r.text, Corrections: m})
		gc, pc = append(gc, r.category), append(pc, out.Category)
		if out.Sentiment == r.sentiment {
			okS++
		}
	}
	rep := Evaluate(gc, pc, presentCats(gc))
	return curvePoint{rep.Accuracy, rep.MacroF1, float64(okS) / float64(max(len(test), 1))}, len(test)
}

func presentCats(gold []string) []string {
	var out []string
	for _, c := range vocab.Categories {
		if slices.Contains(gold, c) {
			out = append(out, c)
		}
	}
	return out
}
