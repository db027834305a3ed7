package metrics

import (
	"strings"
	"testing"
)

func TestTextExposition(t *testing.T) {
	r := New()
	c := r.Counter("earshot_test_total", "A test counter.", "kind")
	c.Inc("a")
	c.Add(2, "a")
	c.Inc(`quo"te`)
	h := r.Histogram("earshot_test_seconds", "A test histogram.", []float64{0.1, 1}, "op")
	h.Observe(0.05, "x")
	h.Observe(0.5, "x")
	h.Observe(5, "x")
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE earshot_test_total counter",
		`earshot_test_total{kind="a"} 3`,
		`earshot_test_total{kind="quo\"te"} 1`,
		"# TYPE earshot_test_seconds histogram",
		`earshot_test_seconds_bucket{op="x",le="0.1"} 1`,
		`earshot_test_seconds_bucket{op="x",le="1"} 2`,
		`earshot_test_seconds_bucket{op="x",le="+Inf"} 3`,
		`earshot_test_seconds_sum{op="x"} 5.55`,
		`earshot_test_seconds_count{op="x"} 3`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// the same name registers once
	if r.Counter("earshot_test_total", "again", "kind"); strings.Count(out, "# TYPE earshot_test_total") != 1 {
		t.Fatal("duplicate family")
	}
}
