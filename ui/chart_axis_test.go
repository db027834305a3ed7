package ui

import (
	"strings"
	"testing"
)

// TestChartAxisLabelsFit: at 1,000 and more mentions a day the y-axis
// labels ("1,500") fit left of the plot in both drawings, wide and narrow,
// instead of being cut at the drawing's edge (".500"). Widths are those of
// a common sans-serif: a digit 0.556 em, a comma 0.278 em.
func TestChartAxisLabelsFit(t *testing.T) {
	for _, peak := range []int{40, 1500, 27000, 1200000} {
		days := []stackDay{{Date: "2026-11-26", Segs: []stackSeg{{Count: peak / 3, Color: "#000", Name: "a"}}}, {Date: "2026-11-27", Segs: []stackSeg{{Count: peak, Color: "#000", Name: "a"}}}}
		for _, w := range []float64{720, 360} {
			c := stackChart("t", "t", "t", days, w, nil)
			for _, tk := range c.Ticks {
				width := 0.0
				for _, r := range tk.Label {
					if r == ',' {
						width += 0.278 * float64(c.FontSize)
					} else {
						width += 0.556 * float64(c.FontSize)
					}
				}
				if tk.X-width < 0 {
					t.Errorf("peak %d, width %.0f: label %q (%.1f px wide) ends at x=%.1f: cut at the left edge", peak, w, tk.Label, width, tk.X)
				}
			}
			top := c.Ticks[len(c.Ticks)-1].Label
			if peak >= 1000 && !strings.Contains(top, ",") {
				t.Errorf("peak %d: the top label %q has no thousands separator", peak, top)
			}
		}
	}
}
