package replay

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Replay handler of a Mastodon instance for `earshot demo` (see replay.go):
// hashtag timelines, full-text search (token required, as on a real
// instance), account lookup and account statuses, answering from
// recorded/mastodon/statuses.json with max_id/limit/offset applied and
// Link headers for the next page.

// MastodonAccount is the brand's account the demo monitor watches.
const MastodonAccount = "@acme@mastodon.example"

type demoMastodon struct{ d *demoShift }

type demoStatus struct {
	raw     json.RawMessage
	id      string
	text    string
	tags    []string
	account struct{ ID, Acct string }
}

func (h demoMastodon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-RateLimit-Limit", "300")
	w.Header().Set("X-RateLimit-Remaining", "299")
	w.Header().Set("X-RateLimit-Reset", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"))
	var raws []json.RawMessage
	if err := demoJSON(h.d, "statuses.json", &raws); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var all []demoStatus // newest first in the file
	for _, raw := range raws {
		var s struct {
			ID      string `json:"id"`
			Content string `json:"content"`
			Spoiler string `json:"spoiler_text"`
			Tags    []struct{ Name string }
			Account struct {
				ID   string `json:"id"`
				Acct string `json:"acct"`
			} `json:"account"`
		}
		json.Unmarshal(raw, &s)
		st := demoStatus{raw: raw, id: s.ID, text: s.Spoiler + " " + wire.PlainText(s.Content)}
		for _, t := range s.Tags {
			st.tags = append(st.tags, t.Name)
		}
		st.account.ID, st.account.Acct = s.Account.ID, s.Account.Acct
		all = append(all, st)
	}
	q := r.URL.Query()
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/v1/timelines/tag/"):
		tag := strings.ToLower(strings.TrimPrefix(p, "/api/v1/timelines/tag/"))
		h.page(w, r, all, func(s demoStatus) bool {
			for _, t := range s.tags {
				if strings.EqualFold(t, tag) {
					return true
				}
			}
			return false
		})
	case p == "/api/v2/search":
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			writeDemoJSON(w, http.StatusOK, map[string]any{"accounts": []any{}, "statuses": []any{}, "hashtags": []any{}})
			return
		}
		terms := parseDemoTerms(q.Get("q"))
		var hits []json.RawMessage
		for _, s := range all {
			if terms.match(s.text, "") {
				hits = append(hits, s.raw)
			}
		}
		limit := demoInt(q.Get("limit"), 20, 1, 40)
		from := demoInt(q.Get("offset"), 0, 0, len(hits))
		writeDemoJSON(w, http.StatusOK, map[string]any{"accounts": []any{}, "hashtags": []any{},
			"statuses": append([]json.RawMessage{}, hits[from:min(from+limit, len(hits))]...)})
	case p == "/api/v1/accounts/lookup":
		acct := strings.ToLower(strings.TrimPrefix(q.Get("acct"), "@"))
		for _, s := range all {
			if strings.EqualFold(s.account.Acct, acct) || strings.EqualFold(s.account.Acct+"@mastodon.example", acct) {
				var st struct {
					Account json.RawMessage `json:"account"`
				}
				json.Unmarshal(s.raw, &st)
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.Write(st.Account)
				return
			}
		}
		writeDemoJSON(w, http.StatusNotFound, map[string]string{"error": "Record not found"})
	case strings.HasPrefix(p, "/api/v1/accounts/") && strings.HasSuffix(p, "/statuses"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/accounts/"), "/statuses")
		h.page(w, r, all, func(s demoStatus) bool { return s.account.ID == id })
	default:
		writeDemoJSON(w, http.StatusNotFound, map[string]string{"error": "Not Found"})
	}
}

// page answers a newest-first timeline: statuses older than max_id, limit
// of them, and a Link rel="next" when more remain.
func (h demoMastodon) page(w http.ResponseWriter, r *http.Request, all []demoStatus, keep func(demoStatus) bool) {
	q := r.URL.Query()
	maxID := q.Get("max_id")
	limit := demoInt(q.Get("limit"), 20, 1, 40)
	var hits []demoStatus
	for _, s := range all {
		if keep(s) && (maxID == "" || wire.NewerID(maxID, s.id)) {
			hits = append(hits, s)
		}
	}
	page := hits[:min(limit, len(hits))]
	out := []json.RawMessage{}
	for _, s := range page {
		out = append(out, s.raw)
	}
	if len(hits) > len(page) {
		next := *r.URL
		nq := next.Query()
		nq.Set("max_id", page[len(page)-1].id)
		next.RawQuery = nq.Encode()
		next.Scheme, next.Host = "https", "mastodon.example"
		w.Header().Set("Link", `<`+next.String()+`>; rel="next", <https://mastodon.example`+r.URL.Path+`?min_id=`+page[0].id+`>; rel="prev"`)
	}
	writeDemoJSON(w, http.StatusOK, out)
}

// socialHandlers returns the replay handlers of bluesky and mastodon.
func socialHandlers(d func(dir string) *demoShift) map[string]http.Handler {
	return map[string]http.Handler{
		"bluesky":  demoBluesky{d("bluesky")},
		"mastodon": demoMastodon{d("mastodon")},
	}
}
