package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
	"earshot/store"
)

// filterKeys are the list_mentions query parameters the inbox reflects in
// its URL (cursor is the JavaScript's business).
var filterKeys = []string{"search", "status", "category", "sentiment", "source", "monitor_id", "min_urgency", "max_urgency",
	"author_handle", "is_relevant", "date_preset", "since", "until", "collected_since", "limit"}

// viewKeys are the filters a saved view can hold.
var viewKeys = []string{"monitor_id", "source", "category", "sentiment", "status", "min_urgency", "max_urgency", "author_handle", "search", "date_preset", "since", "until"}

type inboxData struct {
	Q        url.Values
	QS       string // the filter query string, for the JavaScript's endpoints
	Filtered bool
	Rows     rowsData
	Next     string
	HasMore  bool
	QueryErr *capability.Error
	Views    []viewLink
	Monitors []*store.Monitor
	PollFrom string
	Options  map[string][]string
	Elapsed  time.Duration
}

type viewLink struct {
	ID, Name, Href string
	Current        bool
}

type rowsData struct {
	Items    []*store.Mention
	CanWrite bool
	CSRF     string
	Back     string
	Labels   map[string]string
	Single   bool // the one-mention page: no selection box (no bulk actions there)
}

var filterOptions = map[string][]string{
	"status":      {"new", "reviewed", "done", "ignored"},
	"category":    {"bug_report", "complaint", "misinformation", "product_idea", "testimonial", "other"},
	"sentiment":   {"positive", "neutral", "negative"},
	"source":      capability.SourceValues,
	"date_preset": {"today", "last_24_hours", "last_7_days", "last_30_days", "last_90_days", "month_to_date", "all_time"},
}

// filterQuery keeps the known filter parameters of q.
func filterQuery(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range filterKeys {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

func (u *UI) inbox(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	start := time.Now()
	ctx := r.Context()
	pg.Title, pg.Nav = "Inbox", "inbox"
	rq := r.URL.Query()
	q := filterQuery(rq)
	d := &inboxData{Q: q, QS: q.Encode(), Filtered: len(q) > 0, Options: filterOptions, PollFrom: store.FormatTime(u.now())}
	d.Rows = rowsData{CanWrite: pg.Can(capability.MentionsWrite), CSRF: pg.CSRF, Back: pg.Path, Labels: u.categoryLabels(r, pg.P)}
	lq := filterQuery(rq)
	if c := rq.Get("cursor"); c != "" { // the no-JavaScript "Load more" link
		lq.Set("cursor", c)
	}
	if o := u.run(ctx, pg.P, "list_mentions", lq, true); o.Err != nil {
		d.QueryErr = o.Err
		if o.Err.Status != http.StatusBadRequest {
			pg.Status = o.Err.Status
		}
	} else {
		out := o.Data.(*capability.ListMentionsOut)
		d.Rows.Items, d.HasMore = out.Items, out.HasMore
		if out.NextCursor != nil {
			d.Next = *out.NextCursor
		}
	}
	if o := u.exec(ctx, pg.P, "list_views", &capability.Empty{}); o.Err == nil {
		for _, v := range o.Data.(*capability.ViewsOut).Views {
			vq := viewQuery(v.Filters)
			d.Views = append(d.Views, viewLink{ID: v.ID, Name: v.Name, Href: "/?" + vq.Encode(), Current: vq.Encode() == d.QS && len(q) > 0})
		}
	}
	if o := u.exec(ctx, pg.P, "list_monitors", &capability.Empty{}); o.Err == nil {
		d.Monitors = o.Data.(*capability.MonitorsOut).Monitors
	}
	d.Elapsed = time.Since(start)
	pg.Data = d
	u.render(w, pg, "inbox")
}

// viewQuery turns saved-view filters into inbox query parameters.
func viewQuery(raw json.RawMessage) url.Values {
	var m map[string]any
	json.Unmarshal(raw, &m)
	out := url.Values{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				out.Set(k, v)
			}
		case float64:
			out.Set(k, fmt.Sprint(int(v)))
		case bool:
			out.Set(k, fmt.Sprint(v))
		}
	}
	return out
}

func (u *UI) categoryLabels(r *http.Request, p *capability.Principal) map[string]string {
	out := map[string]string{}
	if o := u.exec(r.Context(), p, "list_categories", &capability.Empty{}); o.Err == nil {
		for _, c := range o.Data.(*capability.CategoriesOut).Categories {
			out[c.Category] = c.Label
		}
	}
	return out
}

// ---- JSON endpoints for the inbox's JavaScript ----

type apiHandler func(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error)

// authedAPI wraps a small UI endpoint: a session is required (401 JSON),
// and a POST must pass the CSRF checks (403 JSON).
func (u *UI) authedAPI(h apiHandler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		writeJSON := func(status int, v any) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(v)
		}
		s, err := u.loadSession(r)
		if err != nil {
			if !errors.Is(err, errNoSession) {
				u.log.Error("ui session", "err", err)
			}
			writeJSON(http.StatusUnauthorized, map[string]any{"error": capability.Unauthorized("log in again")})
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			r.ParseMultipartForm(1 << 20)
			if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
				writeJSON(http.StatusForbidden, map[string]any{"error": capability.Forbidden(err.Error())})
				return
			}
		}
		v, e := h(w, r, s)
		if e != nil {
			writeJSON(e.Status, map[string]any{"error": e})
			return
		}
		writeJSON(http.StatusOK, v)
	}
}

// rowsOf is the rows fragment's data for a JavaScript endpoint, without the
// rows: one category lookup however many rows are rendered with it.
// A row changed on the one-mention page (back is its path) stays as there.
func (u *UI) rowsOf(r *http.Request, s *session) rowsData {
	back := localPath(r.URL.Query().Get("back"), "/")
	return rowsData{CanWrite: s.p.Has(capability.MentionsWrite), CSRF: csrfToken(s.token),
		Back: back, Labels: u.categoryLabels(r, s.p), Single: strings.HasPrefix(back, "/mentions/")}
}

func (u *UI) renderRows(d rowsData, items []*store.Mention) (string, error) {
	d.Items = items
	return u.fragment("inbox", "rows", d)
}

func (u *UI) rowsFor(r *http.Request, s *session, items []*store.Mention) (string, error) {
	return u.renderRows(u.rowsOf(r, s), items)
}

// mentionRows is the next page for infinite scroll: rendered rows plus the
// following cursor.
func (u *UI) mentionRows(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	q := filterQuery(r.URL.Query())
	q.Set("cursor", r.URL.Query().Get("cursor"))
	o := u.run(r.Context(), s.p, "list_mentions", q, true)
	if o.Err != nil {
		return nil, o.Err
	}
	out := o.Data.(*capability.ListMentionsOut)
	html, err := u.rowsFor(r, s, out.Items)
	if err != nil {
		return nil, capability.Internal()
	}
	return map[string]any{"html": html, "nextCursor": out.NextCursor, "hasMore": out.HasMore, "count": len(out.Items)}, nil
}

// pollMentions returns mentions collected since `after` (list_mentions in
// sync mode, with the inbox's filters), newest first, and the next since.
func (u *UI) pollMentions(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	q := filterQuery(r.URL.Query())
	since := r.URL.Query().Get("after") // not "since": that is the published-at filter
	if since == "" {
		return nil, capability.Invalid("after", "after (a collected_at time) is required")
	}
	q.Set("collected_since", since)
	q.Set("limit", "100")
	o := u.run(r.Context(), s.p, "list_mentions", q, true)
	if o.Err != nil {
		return nil, o.Err
	}
	out := o.Data.(*capability.ListMentionsOut)
	next := since
	ids := make([]string, 0, len(out.Items))
	items := make([]*store.Mention, 0, len(out.Items))
	for i := len(out.Items) - 1; i >= 0; i-- { // collected ascending → newest first
		m := out.Items[i]
		items = append(items, m)
		ids = append(ids, m.ID)
		if m.CollectedAt > next {
			next = m.CollectedAt
		}
	}
	html, err := u.rowsFor(r, s, items)
	if err != nil {
		return nil, capability.Internal()
	}
	return map[string]any{"html": html, "ids": ids, "after": next, "count": len(items), "hasMore": out.HasMore}, nil
}

// setStatus triages one or more mentions (ids) via update_mention_status and
// returns each changed row re-rendered.
func (u *UI) setStatus(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	ids := r.Form["id"]
	if len(ids) == 0 {
		return nil, capability.Invalid("id", "choose at least one mention")
	}
	if len(ids) > 500 {
		return nil, capability.Invalid("id", "at most 500 mentions at once")
	}
	status := r.FormValue("status")
	rows := map[string]string{}
	var errs []map[string]string
	var lastErr *capability.Error
	var rd *rowsData // built at the first changed row
	for _, id := range ids {
		o := u.run(r.Context(), s.p, "update_mention_status", url.Values{"id": {id}, "status": {status}}, false)
		if o.Err != nil {
			lastErr = o.Err
			errs = append(errs, map[string]string{"id": id, "message": o.Err.Message})
			continue
		}
		if rd == nil {
			d := u.rowsOf(r, s)
			rd = &d
		}
		html, err := u.renderRows(*rd, []*store.Mention{o.Data.(*store.Mention)})
		if err != nil {
			return nil, capability.Internal()
		}
		rows[id] = html
	}
	if len(rows) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return map[string]any{"rows": rows, "errors": errs, "status": status}, nil
}

// mention shows one mention with its triage controls: the target of the
// links in alert emails and Slack messages ({base}/mentions/{id}). It has
// its own heading and a way back, not the inbox's filters.
func (u *UI) mention(w http.ResponseWriter, r *http.Request, pg *page, ps httprouter.Params) {
	pg.Title, pg.Nav = "Mention", "inbox"
	o := u.exec(r.Context(), pg.P, "get_mention", &capability.IDPath{ID: ps.ByName("id")})
	if isMissing(o.Err) {
		u.notFoundPage(w, r, pg)
		return
	}
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	pg.Data = rowsData{CanWrite: pg.Can(capability.MentionsWrite), CSRF: pg.CSRF, Back: pg.Path, Labels: u.categoryLabels(r, pg.P),
		Items: []*store.Mention{o.Data.(*store.Mention)}, Single: true}
	u.render(w, pg, "mention")
}
