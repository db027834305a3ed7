package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"earshot/api"
	"earshot/capability"
	"earshot/vocab"
)

type templates struct {
	pages map[string]*template.Template
}

var funcs = template.FuncMap{
	"ago":        ago,
	"absTime":    absTime,
	"join":       strings.Join,
	"has":        slices.Contains[[]string],
	"label":      label,
	"sourceIcon": sourceIcon,
	"sourceName": sourceName,
	"byline":     byline,
	"fe":         fieldErr,
	"paramErr": func(e *capability.Error, param string) string {
		if e == nil || e.Param != param {
			return ""
		}
		return e.Message
	},
	"vocab": func(name string) []string { return vocab.Lists[name] },
	"urgencyClass": func(n int) string {
		switch {
		case n >= vocab.UrgentThreshold:
			return "urg-high"
		case n >= 40:
			return "urg-mid"
		}
		return "urg-low"
	},
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
	"pct": func(a, b int) int {
		if b <= 0 {
			return 0
		}
		return min(100, a*100/b)
	},
	"money": func(f float64) string { return fmt.Sprintf("$%.4f", f) },
	"json": func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	},
	"str": func(v any) string {
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	},
	"storySources": storySources,
	"seq":          func(xs ...string) []string { return xs },
	"filterLabel":  func(k string) string { return filterLabels[k] },
	"viewFilters": func(q url.Values) map[string]string {
		out := map[string]string{}
		for _, k := range viewKeys {
			if v := q.Get(k); v != "" {
				out[k] = v
			}
		}
		return out
	},
	"stAction":  func(s string) string { return statusActions[s] },
	"visAction": func(s string) string { return visActions[s] },
	"backfill": func(h int) string {
		if h < 48 {
			return fmt.Sprintf("%d hours", h)
		}
		return fmt.Sprintf("%d days", h/24)
	},
	// The usage meter turns amber from 80 % of the quota and red at 100 %.
	"quotaLow":  func(n int) int { return n * 8 / 10 },
	"quotaHigh": func(n int) int { return max(n-1, 0) },
	"filterText": func(raw json.RawMessage) string {
		q := viewQuery(raw)
		var parts []string
		for k := range q {
			parts = append(parts, k+"="+q.Get(k))
		}
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	},
	"filterVal":  func(raw json.RawMessage, key string) string { return viewQuery(raw).Get(key) },
	"dict":       dict,
	"engagement": engagement,
	"host": func(s string) string {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return strings.TrimPrefix(u.Host, "www.")
		}
		return s
	},
}

func dict(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

var (
	filterLabels  = map[string]string{"status": "Status", "category": "Category", "sentiment": "Sentiment", "source": "Source", "date_preset": "Published", "public_visibility": "Public page"}
	statusActions = map[string]string{"reviewed": "Reviewed", "done": "Done", "ignored": "Ignore", "new": "New"}
	visActions    = map[string]string{"featured": "Feature", "hidden": "Hide", "auto": "Auto"}
)

func mustTemplates() *templates {
	base := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/_*.html"))
	t := &templates{pages: map[string]*template.Template{}}
	files, _ := fs.Glob(templateFS, "templates/*.html")
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "templates/"), ".html")
		if strings.HasPrefix(name, "_") {
			continue
		}
		t.pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, f))
	}
	return t
}

// render writes a dashboard page (layout + page content).
func (u *UI) render(w http.ResponseWriter, pg *page, name string) {
	u.write(w, pg.Status, name, "layout", pg, pg.start)
}

// renderBare writes a page with the minimal layout (login, setup, errors,
// the public page).
func (u *UI) renderBare(w http.ResponseWriter, status int, name string, data any) {
	u.write(w, status, name, "bare", data, time.Time{})
}

// fragment renders one named template (rows for the inbox's JavaScript).
func (u *UI) fragment(name, tpl string, data any) (string, error) {
	var b bytes.Buffer
	t := u.tpl.pages[name]
	if t == nil {
		return "", fmt.Errorf("no template %s", name)
	}
	if err := t.ExecuteTemplate(&b, tpl, data); err != nil {
		return "", err
	}
	return string(PrefixLinks(u.base, b.Bytes())), nil
}

// write renders into a buffer first, so a template error is a clean 500 and
// Server-Timing covers the whole page (capability calls and rendering).
func (u *UI) write(w http.ResponseWriter, status int, name, layout string, data any, start time.Time) {
	t := u.tpl.pages[name]
	if t == nil {
		http.Error(w, "no template "+name, http.StatusInternalServerError)
		return
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, layout, data); err != nil {
		u.log.Error("ui template", "template", name, "err", err)
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	if !start.IsZero() {
		h.Set("Server-Timing", fmt.Sprintf("app;dur=%.1f", float64(time.Since(start).Microseconds())/1000))
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	formAction := "'self'"
	if extra := h.Get(formActionHeader); extra != "" {
		// The OAuth consent form redirects to the client's own address.
		formAction += " " + extra
		h.Del(formActionHeader)
	}
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action "+formAction+"; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(PrefixLinks(u.base, b.Bytes()))
}

func parseTime(s string) (time.Time, bool) {
	t, err := api.ParseTime(s)
	if err != nil {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	return t, err == nil
}

// timeArg is a template's time argument (a string or a *string); nil
// reports a nil *string.
func timeArg(s any) (str string, isNil bool) {
	switch v := s.(type) {
	case string:
		return v, false
	case *string:
		if v == nil {
			return "", true
		}
		return *v, false
	}
	return "", false
}

func ago(s any) string {
	str, isNil := timeArg(s)
	if isNil {
		return "never"
	}
	t, ok := parseTime(str)
	if !ok {
		return str
	}
	d := time.Since(t)
	switch {
	case d < 0:
		return "in " + short(-d)
	case d < time.Minute:
		return "just now"
	}
	return short(d) + " ago"
}

func short(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
}

func absTime(s any) string {
	str, _ := timeArg(s) // nil → "", which does not parse
	t, ok := parseTime(str)
	if !ok {
		return str
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

var labels = map[string]string{
	"bug_report": "Bug report", "complaint": "Complaint", "misinformation": "Misinformation", "product_idea": "Product idea",
	"testimonial": "Testimonial", "other": "Other", "positive": "Positive", "neutral": "Neutral", "negative": "Negative",
	"new": "New", "reviewed": "Reviewed", "done": "Done", "ignored": "Ignored", "any": "Any keyword", "all": "All keywords", "phrase": "Exact phrase",
	"today": "Today", "last_24_hours": "Last 24 hours", "last_7_days": "Last 7 days", "last_30_days": "Last 30 days",
	"last_90_days": "Last 90 days", "month_to_date": "Month to date", "all_time": "All time",
	"ok": "OK", "not_configured": "Not configured", "rate_limited": "Rate limited", "failing": "Failing", "stale": "Stale", "pending": "Pending", "quota_reached": "Quota reached",
	"my_brand": "My brand", "competitors": "Competitors", "custom": "Custom", "instant": "Instant", "hourly": "Hourly digest", "daily": "Daily digest",
	"email": "Email", "webhook": "Webhook", "slack": "Slack", "owner": "Owner", "editor": "Editor", "viewer": "Viewer",
	"delivered": "Delivered", "failed": "Failed", "featured": "Featured", "hidden": "Hidden", "auto": "Automatic",
	"mention": "Mentions", "spike": "Spikes",
}

func label(s string) string {
	if l, ok := labels[s]; ok {
		return l
	}
	return s
}

var sourceNames = map[string]string{"x": "X", "reddit": "Reddit", "youtube": "YouTube", "linkedin": "LinkedIn", "threads": "Threads",
	"bluesky": "Bluesky", "mastodon": "Mastodon", "hn": "Hacker News", "news": "News", "reviews": "Reviews"}

func sourceName(s string) string {
	if n, ok := sourceNames[s]; ok {
		return n
	}
	return s
}

// byline names a post's author: "@handle", or who it is from when the
// platform gave no handle ("a news site", "a reviewer", "a Reddit user").
// LinkedIn gives pages and members as URNs, which read as noise after an @.
func byline(handle, source string) string {
	if kind, ok := strings.CutPrefix(handle, "urn:li:"); ok {
		switch {
		case strings.HasPrefix(kind, "organization:"), strings.HasPrefix(kind, "company:"):
			return "a LinkedIn page"
		case strings.HasPrefix(kind, "person:"), strings.HasPrefix(kind, "member:"):
			return "a LinkedIn member"
		}
		return "a LinkedIn user"
	}
	if strings.TrimSpace(handle) != "" {
		return "@" + handle
	}
	switch source {
	case "news":
		return "a news site"
	case "reviews":
		return "a reviewer"
	}
	name := sourceName(source)
	if source == "x" {
		return "an " + name + " user" // "an ex user"
	}
	return "a " + name + " user"
}

// sourceIcon is a small text badge per platform (no external assets).
func sourceIcon(s string) template.HTML {
	short := map[string]string{"x": "𝕏", "reddit": "r/", "youtube": "▶", "linkedin": "in", "threads": "@", "bluesky": "b", "mastodon": "m", "hn": "Y", "news": "N", "reviews": "★"}[s]
	if short == "" {
		short = "•"
	}
	return template.HTML(`<span class="src src-` + template.HTMLEscapeString(s) + `" aria-hidden="true">` + template.HTMLEscapeString(short) + `</span>`)
}

// engagement words a post's engagement counts, largest first ("12 upvotes ·
// 3 comments"); "" when there are none.
func engagement(e map[string]int64) string {
	type kv struct {
		k string
		v int64
	}
	var xs []kv
	for k, v := range e {
		if v > 0 {
			xs = append(xs, kv{k, v})
		}
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].v > xs[j].v || xs[i].v == xs[j].v && xs[i].k < xs[j].k })
	var parts []string
	for _, x := range xs {
		switch x.k {
		case "has_replies":
			parts = append(parts, "has replies") // Threads says only whether
			continue
		case "bestRating":
			continue // the scale of rating, said with it
		case "rating":
			if best := e["bestRating"]; best > 0 {
				parts = append(parts, fmt.Sprintf("rated %d of %d", x.v, best))
			} else {
				parts = append(parts, fmt.Sprintf("rated %d", x.v))
			}
			continue
		}
		label, ok := engagementLabels[x.k]
		if !ok {
			label = [2]string{strings.ReplaceAll(x.k, "_", " "), strings.ReplaceAll(x.k, "_", " ")}
		}
		name := label[1]
		if x.v == 1 {
			name = label[0]
		}
		parts = append(parts, fmt.Sprintf("%d %s", x.v, name))
	}
	return strings.Join(parts, " · ")
}

// engagementLabels are the collectors' engagement keys in words, singular
// and plural. A key not listed is shown with its underscores as spaces.
var engagementLabels = map[string][2]string{
	"num_comments": {"comment", "comments"},
	"comments":     {"comment", "comments"},
	"likes":        {"like", "likes"},
	"replies":      {"reply", "replies"},
	"reposts":      {"repost", "reposts"},
	"quotes":       {"quote", "quotes"},
	"retweets":     {"repost", "reposts"},
	"points":       {"point", "points"},
	"upvotes":      {"upvote", "upvotes"},
	"favourites":   {"favourite", "favourites"},
	"reblogs":      {"boost", "boosts"},
	"views":        {"view", "views"},
	"stars":        {"star", "stars"},
	"commentCount": {"comment", "comments"},
	"likeCount":    {"like", "likes"},
	"viewCount":    {"view", "views"},
	"voteCount":    {"vote on helpfulness", "votes on helpfulness"},
	"voteSum":      {"found it helpful", "found it helpful"},
	"impressions":  {"impression", "impressions"},
	"reactions":    {"reaction", "reactions"},
}
