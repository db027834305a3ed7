package ui

import (
	"fmt"
	"strings"

	"earshot/capability"
)

// chart is a share-of-voice stacked bar chart laid out for inline SVG.
type chart struct {
	W, H, PlotTop, PlotBottom, PlotLeft float64
	Bars                                []bar
	Legend                              []legendItem
	Ticks                               []tick
	Labels                              []tick
	Title, Desc                         string
	Empty                               bool
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
	X, Y  float64
	Label string
}

// Colour-blind-safe palette (Okabe–Ito); the own brand gets the first.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8a6d00", "#000000"}

func sovChart(s *capability.SOVOut) chart {
	c := chart{W: 720, H: 260, PlotTop: 10, PlotBottom: 220, PlotLeft: 44}
	color := map[string]string{}
	var own, others []string
	for _, g := range s.Groups {
		if g.IsOwn {
			own = append(own, g.Name)
		} else {
			others = append(others, g.Name)
		}
	}
	i := 0
	for _, g := range s.Groups {
		if g.IsOwn {
			color[g.ID] = palette[i%len(palette)]
			i++
		}
	}
	for _, g := range s.Groups {
		if !g.IsOwn {
			color[g.ID] = palette[i%len(palette)]
			i++
		}
	}
	names := map[string]string{}
	for _, g := range s.Groups {
		names[g.ID] = g.Name
		c.Legend = append(c.Legend, legendItem{Name: g.Name, Color: color[g.ID], Own: g.IsOwn, Mentions: g.Mentions, Share: g.Share})
	}
	c.Title = "Share of voice per day"
	c.Desc = fmt.Sprintf("Stacked bars of relevant mentions per day from %s to %s. Own brand: %s. Competitors: %s. %d mentions in total.",
		s.Since[:min(10, len(s.Since))], s.Until[:min(10, len(s.Until))], orNone(own), orNone(others), s.Total)
	maxDay := 0
	for _, d := range s.Days {
		maxDay = max(maxDay, d.Total)
	}
	if maxDay == 0 || len(s.Days) == 0 {
		c.Empty = true
		return c
	}
	top := niceCeil(maxDay)
	plotH := c.PlotBottom - c.PlotTop
	plotW := c.W - c.PlotLeft - 8
	step := plotW / float64(len(s.Days))
	bw := step * 0.75
	for k := 0; k <= 4; k++ {
		v := top * k / 4
		y := c.PlotBottom - plotH*float64(v)/float64(top)
		c.Ticks = append(c.Ticks, tick{X: c.PlotLeft - 6, Y: y, Label: fmt.Sprint(v)})
	}
	every := max(1, len(s.Days)/8)
	for j, d := range s.Days {
		x := c.PlotLeft + float64(j)*step + (step-bw)/2
		b := bar{X: x, W: bw}
		y := c.PlotBottom
		for _, g := range d.Groups {
			if g.Mentions == 0 {
				continue
			}
			h := plotH * float64(g.Mentions) / float64(top)
			y -= h
			b.Segs = append(b.Segs, seg{Y: y, H: h, Color: color[g.ID], Title: fmt.Sprintf("%s, %s: %d mentions (%.1f%%)", d.Date, names[g.ID], g.Mentions, g.Share)})
		}
		c.Bars = append(c.Bars, b)
		if j%every == 0 {
			c.Labels = append(c.Labels, tick{X: x + bw/2, Y: c.PlotBottom + 16, Label: shortDate(d.Date)})
		}
	}
	return c
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
