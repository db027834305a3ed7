package server_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchHTTP drives one request shape from 8 concurrent clients over
// loopback and reports requests/s and p99 latency.
func benchHTTP(b *testing.B, e *env, method string, path func(i int64) string, body func(i int64) string, hdr func(i int64) []string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	start := time.Now()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		var local []time.Duration
		for pb.Next() {
			i := n.Add(1)
			req, _ := http.NewRequest(method, e.http.URL+path(i), strings.NewReader(body(i)))
			req.Header.Set("Authorization", "Bearer "+e.keyA)
			req.Header.Set("Content-Type", "application/json")
			h := hdr(i)
			for j := 0; j+1 < len(h); j += 2 {
				req.Header.Set(h[j], h[j+1])
			}
			t0 := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			var buf [4096]byte
			for {
				if _, err := resp.Body.Read(buf[:]); err != nil {
					break
				}
			}
			resp.Body.Close()
			local = append(local, time.Since(t0))
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	el := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/el.Seconds(), "req/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	}
}

func BenchmarkListMonitors(b *testing.B) {
	e := newEnv(&testing.T{})
	for i := range 10 {
		e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": fmt.Sprint("M", i), "keywords": []string{"acme"}}).ok()
	}
	benchHTTP(b, e, "GET", func(int64) string { return "/api/v1/monitors" }, func(int64) string { return "" }, func(int64) []string { return nil })
}

func BenchmarkCreateMonitorIdempotent(b *testing.B) {
	e := newEnv(&testing.T{})
	e.st.SetPlan(b.Context(), e.projA.ID, "unlimited")
	benchHTTP(b, e, "POST", func(int64) string { return "/api/v1/monitors" },
		func(i int64) string { return fmt.Sprintf(`{"name":"M%d","keywords":["acme"]}`, i) },
		func(i int64) []string { return []string{"Idempotency-Key", fmt.Sprintf("bench-key-%08d", i)} })
}
