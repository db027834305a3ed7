// Package metrics is a small Prometheus text-format registry: counters and
// histograms with labels, enough for /metrics without a client library.
package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Registry holds every metric of the process.
type Registry struct {
	mu      sync.Mutex
	metrics map[string]*family
	order   []string
}

type family struct {
	name, help, kind string
	labels           []string
	buckets          []float64
	series           map[string]*series
}

type series struct {
	labelValues []string
	value       float64
	counts      []uint64
	sum         float64
	count       uint64
}

// New returns an empty registry.
func New() *Registry { return &Registry{metrics: map[string]*family{}} }

// DefaultBuckets are latency buckets in seconds.
var DefaultBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func (r *Registry) family(name, help, kind string, labels []string, buckets []float64) *family {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.metrics[name]
	if !ok {
		f = &family{name: name, help: help, kind: kind, labels: labels, buckets: buckets, series: map[string]*series{}}
		r.metrics[name] = f
		r.order = append(r.order, name)
	}
	return f
}

func (r *Registry) get(f *family, values []string) *series {
	key := strings.Join(values, "\x00")
	s, ok := f.series[key]
	if !ok {
		s = &series{labelValues: append([]string(nil), values...)}
		if f.kind == "histogram" {
			s.counts = make([]uint64, len(f.buckets))
		}
		f.series[key] = s
	}
	return s
}

// Counter is a labelled counter.
type Counter struct {
	r *Registry
	f *family
}

// Counter registers (or returns) a counter.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	return &Counter{r: r, f: r.family(name, help, "counter", labels, nil)}
}

// Add adds v to the series with these label values.
func (c *Counter) Add(v float64, labelValues ...string) {
	if c == nil {
		return
	}
	c.r.mu.Lock()
	c.r.get(c.f, labelValues).value += v
	c.r.mu.Unlock()
}

// Inc adds one.
func (c *Counter) Inc(labelValues ...string) { c.Add(1, labelValues...) }

// Histogram is a labelled histogram.
type Histogram struct {
	r *Registry
	f *family
}

// Histogram registers (or returns) a histogram.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	return &Histogram{r: r, f: r.family(name, help, "histogram", labels, buckets)}
}

// Observe records v.
func (h *Histogram) Observe(v float64, labelValues ...string) {
	if h == nil {
		return
	}
	h.r.mu.Lock()
	s := h.r.get(h.f, labelValues)
	for i, b := range h.f.buckets {
		if v <= b {
			s.counts[i]++
		}
	}
	s.sum += v
	s.count++
	h.r.mu.Unlock()
}

// Since observes the seconds elapsed since t.
func (h *Histogram) Since(t time.Time, labelValues ...string) {
	h.Observe(time.Since(t).Seconds(), labelValues...)
}

// WriteText writes the Prometheus text exposition format.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range r.order {
		f := r.metrics[name]
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.kind)
		keys := make([]string, 0, len(f.series))
		for k := range f.series {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s := f.series[k]
			switch f.kind {
			case "counter":
				fmt.Fprintf(w, "%s%s %s\n", f.name, labelText(f.labels, s.labelValues, "", ""), num(s.value))
			case "histogram":
				for i, b := range f.buckets {
					fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.labelValues, "le", num(b)), s.counts[i])
				}
				fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.labelValues, "le", "+Inf"), s.count)
				fmt.Fprintf(w, "%s_sum%s %s\n", f.name, labelText(f.labels, s.labelValues, "", ""), num(s.sum))
				fmt.Fprintf(w, "%s_count%s %d\n", f.name, labelText(f.labels, s.labelValues, "", ""), s.count)
			}
		}
	}
	return nil
}

func num(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%g", v)
}

func labelText(names, values []string, extraName, extraValue string) string {
	var parts []string
	for i, n := range names {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		parts = append(parts, fmt.Sprintf("%s=%q", n, v))
	}
	if extraName != "" {
		parts = append(parts, fmt.Sprintf("%s=%q", extraName, extraValue))
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ",") + "}"
}
