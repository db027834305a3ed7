package classify

import (
	"fmt"
	"strings"
)

// ClassScore is precision, recall and F1 for one label.
type ClassScore struct {
	Label     string
	Precision float64
	Recall    float64
	F1        float64
	Support   int // gold items with this label
}

// Report scores predictions against gold labels.
type Report struct {
	Labels    []string
	Classes   []ClassScore
	MacroP    float64
	MacroR    float64
	MacroF1   float64
	Accuracy  float64
	Confusion [][]int // Confusion[gold][pred], indexed like Labels
	N         int
}

// Evaluate compares pred with gold, item by item. Labels not in labels are
// counted in no class (but still lower accuracy).
func Evaluate(gold, pred []string, labels []string) Report {
	idx := make(map[string]int, len(labels))
	for i, l := range labels {
		idx[l] = i
	}
	r := Report{Labels: labels, Confusion: make([][]int, len(labels)), N: len(gold)}
	for i := range r.Confusion {
		r.Confusion[i] = make([]int, len(labels))
	}
	correct := 0
	for i := range gold {
		if i >= len(pred) {
			break
		}
		if gold[i] == pred[i] {
			correct++
		}
		g, ok1 := idx[gold[i]]
		p, ok2 := idx[pred[i]]
		if ok1 && ok2 {
			r.Confusion[g][p]++
		}
	}
	if len(gold) > 0 {
		r.Accuracy = float64(correct) / float64(len(gold))
	}
	for i, l := range labels {
		tp, fp, fn := 0, 0, 0
		for k := range gold {
			if k >= len(pred) {
				break
			}
			switch {
			case gold[k] == l && pred[k] == l:
				tp++
			case pred[k] == l:
				fp++
			case gold[k] == l:
				fn++
			}
		}
		cs := ClassScore{Label: l, Support: tp + fn}
		if tp+fp > 0 {
			cs.Precision = float64(tp) / float64(tp+fp)
		}
		if tp+fn > 0 {
			cs.Recall = float64(tp) / float64(tp+fn)
		}
		if cs.Precision+cs.Recall > 0 {
			cs.F1 = 2 * cs.Precision * cs.Recall / (cs.Precision + cs.Recall)
		}
		_ = i
		r.Classes = append(r.Classes, cs)
		r.MacroP += cs.Precision
		r.MacroR += cs.Recall
		r.MacroF1 += cs.F1
	}
	if n := float64(len(labels)); n > 0 {
		r.MacroP /= n
		r.MacroR /= n
		r.MacroF1 /= n
	}
	return r
}

// Class returns the score of one label (zero if unknown).
func (r Report) Class(label string) ClassScore {
	for _, c := range r.Classes {
		if c.Label == label {
			return c
		}
	}
	return ClassScore{Label: label}
}

// String renders the report as a table followed by the confusion matrix.
func (r Report) String() string {
	var b strings.Builder
	w := 14
	for _, l := range r.Labels {
		if len(l)+2 > w {
			w = len(l) + 2
		}
	}
	fmt.Fprintf(&b, "%-*s %9s %9s %9s %8s\n", w, "label", "precision", "recall", "f1", "support")
	for _, c := range r.Classes {
		fmt.Fprintf(&b, "%-*s %9.3f %9.3f %9.3f %8d\n", w, c.Label, c.Precision, c.Recall, c.F1, c.Support)
	}
	fmt.Fprintf(&b, "%-*s %9.3f %9.3f %9.3f %8d\n", w, "macro", r.MacroP, r.MacroR, r.MacroF1, r.N)
	fmt.Fprintf(&b, "%-*s %29.3f\n", w, "accuracy", r.Accuracy)
	fmt.Fprintf(&b, "confusion (rows gold, columns predicted):\n%-*s", w, "")
	for _, l := range r.Labels {
		fmt.Fprintf(&b, " %*s", colWidth(l), l)
	}
	b.WriteByte('\n')
	for i, l := range r.Labels {
		fmt.Fprintf(&b, "%-*s", w, l)
		for j, lj := range r.Labels {
			fmt.Fprintf(&b, " %*d", colWidth(lj), r.Confusion[i][j])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func colWidth(l string) int {
	if len(l) < 6 {
		return 6
	}
	return len(l)
}
