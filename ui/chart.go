package ui

import (
	"fmt"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"earshot/capability"
	"earshot/vocab"
)

// chart is a stacked bar chart (one bar per day) laid out for inline SVG.
// Every chart is laid out twice, wide and narrow (the narrow one shown
// below 600 px), so its text stays readable at phone width instead of
// shrinking with the drawing.
type chart struct {
	ID                                  string // prefix of the SVG's title/desc ids
	W, H, PlotTop, PlotBottom, PlotLeft float64
	Bars                                []bar
	Legend                              []legendItem
	Ticks                               []tick
	Labels                              []tick
	Spikes                              []spikeMark
	Title, Desc                         string
	Empty                               bool
	FontSize                            int
}

type bar struct {
	X, W float64
	Segs []seg
}

type seg struct {
	Y, H  float64
	Color string
	Title string
}

type legendItem struct {
	Name     string
	Color    string
	Own      bool
	Mentions int
	Share    float64
}

type tick struct {
	X, Y   float64
	Label  string
	Anchor string // text-anchor: middle, or end for the last label at the right edge
}

// spikeMark is a marker over a day's bar that links to the mentions behind
// a spike.
type spikeMark struct {
	X, Y  float64
	Href  string
	Label string
}

// stackDay is one day of a stacked chart: its segments bottom to top.
type stackDay struct {
	Date  string // YYYY-MM-DD
	Segs  []stackSeg
	Spike *spikeMark // Href and Label set: a spike on this day
}

type stackSeg struct {
	Count int
	Color string
	Name  string
}

// Colour-blind-safe palette (Okabe–Ito); the own brand gets the first.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8a6d00", "#000000"}

// Sentiment colours: blue-green, grey, vermilion (distinct for colour-blind
// readers; the legend and every bar's title name them too).
var sentimentColors = map[string]string{"positive": "#009E73", "neutral": "#8c959f", "negative": "#D55E00"}

// stackChart lays out days as stacked bars in a w-wide drawing; name
// labels a bar (nil: a day's short date).
func stackChart(id, title, desc string, days []stackDay, w float64, name func(string) string) chart {
	if name == nil {
		name = shortDate
	}
	narrow := w < 500
	c := chart{ID: id, W: w, H: 240, PlotTop: 18, PlotBottom: 200, PlotLeft: 36, Title: title, Desc: desc, FontSize: 11}
	if narrow {
		c.H, c.PlotBottom, c.PlotLeft, c.FontSize = 220, 184, 30, 12
	}
	maxDay := 0
	for _, d := range days {
		t := 0
		for _, s := range d.Segs {
			t += s.Count
		}
		maxDay = max(maxDay, t)
	}
	if maxDay == 0 || len(days) == 0 {
		c.Empty = true
		return c
	}
	top := niceCeil(maxDay)
	plotH := c.PlotBottom - c.PlotTop
	// The axis is as wide as its longest label ("1,500" needs more room
	// than "40"), so no label is cut at the drawing's left edge.
	c.PlotLeft = max(c.PlotLeft, axisWidth(num(top), c.FontSize))
	plotW := c.W - c.PlotLeft - 6
	step := plotW / float64(len(days))
	bw := step * 0.75
	for k := 0; k <= 4; k++ {
		v := top * k / 4
		y := c.PlotBottom - plotH*float64(v)/float64(top)
		c.Ticks = append(c.Ticks, tick{X: c.PlotLeft - 5, Y: y, Label: num(v)})
	}
	labels := 8
	if narrow {
		labels = 4
	}
	every := max(1, (len(days)+labels-1)/labels)
	for j, d := range days {
		x := c.PlotLeft + float64(j)*step + (step-bw)/2
		b := bar{X: x, W: bw}
		y := c.PlotBottom
		for _, s := range d.Segs {
			if s.Count == 0 {
				continue
			}
			h := plotH * float64(s.Count) / float64(top)
			y -= h
			b.Segs = append(b.Segs, seg{Y: y, H: h, Color: s.Color, Title: fmt.Sprintf("%s, %s: %d", name(d.Date), s.Name, s.Count)})
		}
		c.Bars = append(c.Bars, b)
		if d.Spike != nil {
			sp := *d.Spike
			sp.X, sp.Y = x+bw/2, y-4
			c.Spikes = append(c.Spikes, sp)
		}
		if (len(days)-1-j)%every == 0 { // the last day always labelled
			t := tick{X: x + bw/2, Y: c.PlotBottom + 16, Label: name(d.Date), Anchor: "middle"}
			if t.X > c.W-24 { // would be cut at the right edge
				t.X, t.Anchor = c.W-1, "end"
			}
			c.Labels = append(c.Labels, t)
		}
	}
	return c
}

// sovCharts is the share-of-voice chart, wide and narrow.
func sovCharts(s *capability.SOVOut) (wide, narrow chart) {
	color := sovColors(s)
	var own, others []string
	names := map[string]string{}
	var legend []legendItem
	for _, g := range s.Groups {
		if g.IsOwn {
			own = append(own, g.Name)
		} else {
			others = append(others, g.Name)
		}
		names[g.ID] = g.Name
		legend = append(legend, legendItem{Name: g.Name, Color: color[g.ID], Own: g.IsOwn, Mentions: g.Mentions, Share: g.Share})
	}
	title := "Share of voice per day"
	desc := fmt.Sprintf("Stacked bars of relevant mentions per day from %s to %s. Own brand: %s. Competitors: %s. %d mentions in total.",
		s.Since[:min(10, len(s.Since))], s.Until[:min(10, len(s.Until))], orNone(own), orNone(others), s.Total)
	var days []stackDay
	for _, d := range s.Days {
		sd := stackDay{Date: d.Date}
		for _, g := range d.Groups {
			sd.Segs = append(sd.Segs, stackSeg{Count: g.Mentions, Color: color[g.ID], Name: names[g.ID]})
		}
		days = append(days, sd)
	}
	wide, narrow = stackChart("sov-w", title, desc, days, 720, nil), stackChart("sov-n", title, desc, days, 360, nil)
	wide.Legend, narrow.Legend = legend, legend
	return wide, narrow
}

// sovColors gives each keyword group its colour: own brands first.
func sovColors(s *capability.SOVOut) map[string]string {
	color := map[string]string{}
	i := 0
	for _, own := range []bool{true, false} {
		for _, g := range s.Groups {
			if g.IsOwn == own {
				color[g.ID] = palette[i%len(palette)]
				i++
			}
		}
	}
	return color
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func niceCeil(n int) int {
	for _, m := range []int{4, 8, 20, 40, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 40000, 100000} {
		if n <= m {
			return m
		}
	}
	return n
}

func shortDate(d string) string {
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	var y, m, day int
	if _, err := fmt.Sscanf(d, "%d-%d-%d", &y, &m, &day); err != nil || m < 1 || m > 12 {
		return d
	}
	return fmt.Sprintf("%d %s", day, months[m-1])
}

// shareBar is one brand's share of voice as a horizontal bar: its length
// the share, split by sentiment when the counts are known.
type shareBar struct {
	Name     string
	Own      bool
	Color    string
	Mentions int
	Share    float64
	Segs     []barSeg // x and width in percent of the whole bar
	Words    string   // the sentiment split in words
}

type barSeg struct {
	X, W  float64
	Color string
}

// shareBars lays out the groups' shares; sentiment, when given, maps a
// group id to its counts per sentiment.
func shareBars(s *capability.SOVOut, sentiment map[string]map[string]int) []shareBar {
	color := sovColors(s)
	var out []shareBar
	for _, g := range s.Groups {
		b := shareBar{Name: g.Name, Own: g.IsOwn, Color: color[g.ID], Mentions: g.Mentions, Share: g.Share}
		counts := sentiment[g.ID]
		total := counts["positive"] + counts["neutral"] + counts["negative"]
		if total == 0 {
			b.Segs = []barSeg{{X: 0, W: g.Share, Color: b.Color}}
		} else {
			x := 0.0
			var words []string
			for _, k := range vocab.Sentiments {
				w := g.Share * float64(counts[k]) / float64(total)
				b.Segs = append(b.Segs, barSeg{X: x, W: w, Color: sentimentColors[k]})
				x += w
				words = append(words, fmt.Sprintf("%d%% %s", counts[k]*100/total, k))
			}
			b.Words = strings.Join(words, " · ")
		}
		out = append(out, b)
	}
	return out
}

// sparkline is a small line of daily counts, with its total and peak in
// words for the text beside it.
type sparkline struct {
	Points     string // SVG polyline points in a 100×24 box
	Total, Max int
	Days       int
}

func newSparkline(counts []int, total int) sparkline {
	sp := sparkline{Total: total, Days: len(counts)}
	for _, c := range counts {
		sp.Max = max(sp.Max, c)
	}
	if len(counts) == 0 {
		return sp
	}
	var b strings.Builder
	for i, c := range counts {
		x := 0.0
		if len(counts) > 1 {
			x = 100 * float64(i) / float64(len(counts)-1)
		}
		y := 22.0
		if sp.Max > 0 {
			y = 22 - 20*float64(c)/float64(sp.Max)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
	}
	sp.Points = b.String()
	return sp
}

// axisWidth is the room a y-axis needs left of the plot for label at
// fontSize: about 0.62 em a character (digits and commas in the system
// sans-serif fonts are narrower), the 5 px gap to the plot and a margin.
func axisWidth(label string, fontSize int) float64 {
	return float64(len(label)*fontSize)*0.62 + 9
}

// num writes n with thousands separators: 1,500 rather than 1500.
func num(n int) string { return message.NewPrinter(language.English).Sprintf("%d", n) }
