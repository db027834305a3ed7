package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/api"
	"earshot/capability"
	"earshot/vocab"
)

// filterKeys are the list_mentions query parameters the inbox reflects in
// its URL (cursor is the JavaScript's business).
var filterKeys = append(capability.FilterKeys(), "collected_since", "limit", "sort", "collapse")

// viewKeys are the filters a saved view can hold: the mention filter's.
var viewKeys = capability.FilterKeys()

type inboxData struct {
	Q          url.Values
	QS         string // the filter query string, for the JavaScript's endpoints
	Filtered   bool
	Active     int  // how many filters are set
	OpenPanel  bool // the filter panel starts open: filters no view names, or an error in them
	Rows       rowsData
	Next       string
	HasMore    bool
	QueryErr   *capability.Error
	QueryErrs  []*capability.Error // every filter's error, QueryErr's first
	Builtin    []viewLink          // All, New, Urgent
	Sort       string              // "" (newest first) or "urgency"
	SortLinks  []viewLink          // the same filters newest first and most urgent first
	Views      []viewLink
	Overview   *overview   // rendered in the page (?overview=1, for browsers without JavaScript)
	HasStats   bool        // get_mention_stats is served: the overview loads after the page
	Bursts     []spikeItem // spikes recorded in the last 24 hours
	Monitors   []*api.Monitor
	Collapse   bool       // collapse=story: each story listed once
	GroupLinks []viewLink // "Each mention" / "Group stories": the same filters and order, collapse=story or not
	Story      *api.Story // the story the inbox is filtered by (story_id)
	AllHref    string     // every mention, in the same order
	PollFrom   string
	Options    map[string][]string
	Elapsed    time.Duration
}

type viewLink struct {
	ID, Name, Href string
	Current        bool
	Count          string // how many mentions it holds now ("12", "1,000+"); "" when not counted
	query          string // its filters, to count it
}

// countLabel words a capped count: "1,000+" when there are more.
func countLabel(n int, capped bool) string {
	if capped {
		return num(n) + "+"
	}
	return num(n)
}

// ErrFor is the message of the filter error naming param.
func (d *inboxData) ErrFor(param string) string {
	for _, e := range d.QueryErrs {
		if e.Param == param {
			return e.Message
		}
	}
	return ""
}

// Link is path with the inbox's query and, when k is set, k=v: one URL
// built whole (html/template escapes a query interpolated into a URL as
// one value, which would turn "a=b" into "a%3db").
func (d *inboxData) Link(path, k, v string) string {
	q := url.Values{}
	for key, vs := range d.Q {
		q[key] = vs
	}
	if k != "" {
		q.Set(k, v)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// Export is the CSV download of the current filters.
func (d *inboxData) Export() string {
	q := url.Values{}
	for k, v := range d.Q {
		if k != "limit" && k != "collapse" { // the export holds every mention
			q[k] = v
		}
	}
	if len(q) == 0 {
		return "/export.csv"
	}
	return "/export.csv?" + q.Encode()
}

// builtinViews are the inbox's own views, before the saved ones.
// New and Urgent are the triage queue (queueDefault); Filtered holds the
// new mentions it leaves out.
var builtinViews = []viewLink{{Name: "All mentions", Href: "/"}, {Name: "New", Href: "/?status=new", query: "status=new"},
	{Name: "Urgent", Href: "/?" + urgentQuery, query: urgentQuery},
	{Name: "Assigned to me", Href: "/?assignee=me", query: "assignee=me"},
	{Name: "Filtered", Href: "/?" + filteredQuery, query: filteredQuery}}

// filteredQuery is the Filtered view: new mentions judged not relevant,
// the brand's own posts among them (they are never relevant unless a
// person pulled them back).
const filteredQuery = "is_relevant=false&status=new"

// queueDefault makes the dashboard's new mentions the triage queue: with
// status=new and no relevance chosen, only relevant ones are listed,
// counted and exported (the Filtered view has the rest). The API's
// status=new lists both (its contract predates the queue); agents ask for
// status=new&is_relevant=true.
func queueDefault(q url.Values) url.Values {
	if q.Get("status") != "new" || q.Get("is_relevant") != "" {
		return q
	}
	out := maps.Clone(q)
	out.Set("is_relevant", "true")
	return out
}

// urgentQuery is the Urgent view: new mentions worth interrupting someone for.
var urgentQuery = "min_urgency=" + strconv.Itoa(vocab.UrgentThreshold) + "&status=new"

type rowsData struct {
	Items    []*api.Mention
	CanWrite bool
	CSRF     string
	Back     string
	Labels   map[string]string
	Single   bool                // the one-mention page: no selection box (no bulk actions there)
	Search   string              // the inbox's search term, marked in the text
	Keywords map[string][]string // monitor id → keywords, marked in the text
	Compact  bool                // dense rows: one line of text, actions on the current row
	Collapse bool                // each story listed once: its row says "and N more on …"
	Order    string              // "sort=urgency" or "": kept by the story links
	Wall     bool                // the public page's preview: no selection box
	Zone     *time.Location      // the user's time zone (absolute times)
	Me       string              // the user's id: "assigned to you" instead of a name
}

const densityCookie = "earshot_density"

// compact reports the density the user chose (compact unless they chose
// comfortable rows).
func compact(r *http.Request) bool {
	c, err := r.Cookie(densityCookie)
	return err != nil || c.Value != "comfortable"
}

// monitorKeywords maps each monitor to its keywords, for highlighting.
func (u *UI) monitorKeywords(ms []*api.Monitor) map[string][]string {
	out := make(map[string][]string, len(ms))
	for _, m := range ms {
		out[m.ID] = m.Keywords
	}
	return out
}

func (u *UI) listMonitors(r *http.Request, p *capability.Principal) []*api.Monitor {
	if o := u.exec(r.Context(), p, "list_monitors", &capability.Empty{}); o.Err == nil {
		return o.Data.(*capability.MonitorsOut).Monitors
	}
	return nil
}

var filterOptions = map[string][]string{
	"status":            vocab.Statuses,
	"category":          vocab.Categories,
	"sentiment":         vocab.Sentiments,
	"source":            vocab.Sources,
	"public_visibility": vocab.PublicVisibilities,
	"date_preset":       vocab.DatePresets,
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

// withoutEmpty is q's encoding ("" or "?…") without its empty parameters,
// and whether q had any.
func withoutEmpty(q url.Values) (string, bool) {
	had := false
	out := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if v == "" {
				had = true
			} else {
				out.Add(k, v)
			}
		}
	}
	if !had || len(out) == 0 {
		return "", had
	}
	return "?" + out.Encode(), true
}

func (u *UI) inbox(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	start := time.Now()
	ctx := r.Context()
	pg.Title, pg.Nav = "Inbox", "inbox"
	rq := r.URL.Query()
	if clean, ok := withoutEmpty(rq); ok {
		// The filter form sends every field, most of them empty: one
		// redirect gives the search a short URL to share and bookmark
		// (app.js leaves empty fields out before sending, when it runs).
		u.redirect(w, r, r.URL.Path+clean)
		return
	}
	q := filterQuery(rq)
	// The order and the story grouping are not filters: views match, and
	// the panel counts, the filters without them; every view link keeps
	// the chosen order and grouping.
	fq := filterQuery(rq)
	fq.Del("sort")
	fq.Del("collapse")
	fqs := fq.Encode()
	if q.Get("sort") != "urgency" {
		q.Del("sort") // newest is the default: one URL per view
	}
	if q.Get("collapse") != "story" || q.Get("story_id") != "" {
		q.Del("collapse") // one story's mentions are never grouped
	}
	keep := url.Values{}
	for _, k := range []string{"collapse", "sort"} {
		if v := q.Get(k); v != "" {
			keep.Set(k, v)
		}
	}
	withSort := func(href string) string {
		if len(keep) == 0 {
			return href
		}
		return withSort2(href, keep.Encode())
	}
	d := &inboxData{Q: q, QS: q.Encode(), Filtered: len(fq) > 0, Active: len(fq), Options: filterOptions, PollFrom: api.FormatTime(u.now()),
		Sort: q.Get("sort"), Collapse: q.Get("collapse") == "story"}
	base := "/"
	if fqs != "" {
		base = "/?" + fqs
	}
	withOne := func(href, k, v string) string {
		if v == "" {
			return href
		}
		return withSort2(href, k+"="+v)
	}
	d.SortLinks = []viewLink{{Name: "Newest", Href: withOne(base, "collapse", q.Get("collapse")), Current: d.Sort == ""},
		{Name: "Most urgent", Href: withSort2(withOne(base, "collapse", q.Get("collapse")), "sort=urgency"), Current: d.Sort == "urgency"}}
	if q.Get("story_id") == "" { // one story's mentions are never grouped
		d.GroupLinks = []viewLink{{Name: "Each mention", Href: withOne(base, "sort", d.Sort), Current: !d.Collapse},
			{Name: "Group stories", Href: withOne(withSort2(base, "collapse=story"), "sort", d.Sort), Current: d.Collapse}}
	}
	d.Monitors = u.listMonitors(r, pg.P)
	d.Rows = rowsData{CanWrite: pg.Can(capability.MentionsWrite), CSRF: pg.CSRF, Back: pg.Path, Labels: u.categoryLabels(r, pg.P), Zone: pg.Zone, Me: pg.User.ID,
		Search: q.Get("search"), Keywords: u.monitorKeywords(d.Monitors), Compact: compact(r), Collapse: d.Collapse, Order: q.Get("sort")}
	if id := q.Get("story_id"); id != "" {
		if o := u.exec(ctx, pg.P, "get_story", &capability.IDPath{ID: id}); o.Err == nil {
			d.Story = o.Data.(*api.Story)
			d.AllHref = withSort("/")
		}
	}
	lq := queueDefault(filterQuery(rq))
	if !d.Collapse {
		lq.Del("collapse")
	}
	if c := rq.Get("cursor"); c != "" { // the no-JavaScript "Load more" link
		lq.Set("cursor", c)
	}
	if o := u.run(ctx, pg.P, "list_mentions", lq, true); o.Err != nil {
		d.QueryErrs = u.allErrors("list_mentions", lq, true, o.Err)
		d.QueryErr = d.QueryErrs[0]
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
	// A view's link is current when the filters are exactly the view's;
	// the filter panel opens only for filters no view names (or an error).
	// A story's list is headed by the story, not by the panel.
	// The panel opens only when asked (its summary, or an error in it):
	// a search or applied filters start the results right below.
	for _, v := range builtinViews {
		v.Current = v.Href == "/?"+fqs || (v.Href == "/" && fqs == "")
		v.Href = withSort(v.Href)
		if v.query != "" { // count_mentions stops at 1000: cheap at any size
			vq, _ := url.ParseQuery(v.query)
			if o := u.run(ctx, pg.P, "count_mentions", queueDefault(vq), true); o.Err == nil {
				if c, ok := o.Data.(*capability.CountOut); ok {
					v.Count = countLabel(c.Count, c.CountCapped)
				}
			}
		}
		d.Builtin = append(d.Builtin, v)
	}
	if o := u.exec(ctx, pg.P, "list_views", &capability.Empty{}); o.Err == nil {
		for _, v := range o.Data.(*capability.ViewsOut).Views {
			vq := viewQuery(v.Filters)
			cur := vq.Encode() == fqs && len(fq) > 0
			vl := viewLink{ID: v.ID, Name: v.Name, Href: withSort("/?" + vq.Encode()), Current: cur}
			if v.Count != nil {
				vl.Count = countLabel(*v.Count, v.CountCapped)
			}
			if qq := queueDefault(vq); qq.Get("is_relevant") != vq.Get("is_relevant") {
				// A saved view of new mentions lists the queue here: its
				// count must too (list_views counts as the API lists).
				if o := u.run(ctx, pg.P, "count_mentions", qq, true); o.Err == nil {
					if c, ok := o.Data.(*capability.CountOut); ok {
						vl.Count = countLabel(c.Count, c.CountCapped)
					}
				}
			}
			d.Views = append(d.Views, vl)
		}
	}
	for _, e := range d.QueryErrs {
		if e.Param != "search" { // the search field is outside the panel
			d.OpenPanel = true
		}
	}
	d.Bursts = u.recentSpikes(r, pg.P, d.Monitors, pg.Zone)
	_, d.HasStats = u.svc.Capability("get_mention_stats")
	if d.HasStats && rq.Get("overview") == "1" {
		d.Overview = u.inboxOverview(r, pg.P, queueDefault(q), pg.Zone)
	}
	d.Elapsed = time.Since(start)
	pg.Data = d
	u.render(w, pg, "inbox")
}

// withSort2 appends a query parameter to an inbox link.
func withSort2(href, param string) string {
	if href == "/" {
		return "/?" + param
	}
	return href + "&" + param
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
	rq := r.URL.Query()
	search, collapse, order := rq.Get("search"), rq.Get("collapse"), rq.Get("sort")
	if bu, err := url.Parse(back); err == nil {
		bq := bu.Query()
		if search == "" {
			search = bq.Get("search")
		}
		if collapse == "" {
			collapse = bq.Get("collapse")
		}
		if order == "" {
			order = bq.Get("sort")
		}
	}
	if order != "urgency" {
		order = ""
	}
	return rowsData{CanWrite: s.p.Has(capability.MentionsWrite), CSRF: csrfToken(s.token),
		Back: back, Labels: u.categoryLabels(r, s.p), Single: strings.HasPrefix(back, "/mentions/"),
		Search: search, Keywords: u.monitorKeywords(u.listMonitors(r, s.p)), Compact: compact(r), Collapse: collapse == "story", Order: order,
		Zone: userZone(s.user), Me: s.user.ID}
}

func (u *UI) renderRows(d rowsData, items []*api.Mention) (string, error) {
	d.Items = items
	return u.fragment("inbox", "rows", d)
}

func (u *UI) rowsFor(r *http.Request, s *session, items []*api.Mention) (string, error) {
	return u.renderRows(u.rowsOf(r, s), items)
}

// mentionRows is the next page for infinite scroll: rendered rows plus the
// following cursor.
func (u *UI) mentionRows(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	q := queueDefault(filterQuery(r.URL.Query()))
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
	q := queueDefault(filterQuery(r.URL.Query()))
	since := r.URL.Query().Get("after") // not "since": that is the published-at filter
	if since == "" {
		return nil, capability.Invalid("after", "after (a collected_at time) is required")
	}
	q.Set("collected_since", since)
	q.Set("limit", "100")
	q.Del("collapse") // sync mode lists every mention; new ones arrive as their own rows
	q.Del("sort")
	o := u.run(r.Context(), s.p, "list_mentions", q, true)
	if o.Err != nil {
		return nil, o.Err
	}
	out := o.Data.(*capability.ListMentionsOut)
	next := since
	ids := make([]string, 0, len(out.Items))
	items := make([]*api.Mention, 0, len(out.Items))
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
	status, vis := r.FormValue("status"), r.FormValue("public_visibility")
	rows := map[string]string{}
	var errs []map[string]string
	var lastErr *capability.Error
	var rd *rowsData // built at the first changed row
	for _, id := range ids {
		in := url.Values{"id": {id}}
		if status != "" {
			in.Set("status", status)
		}
		if vis != "" {
			in.Set("public_visibility", vis)
		}
		o := u.run(r.Context(), s.p, "update_mention_status", in, false)
		if o.Err != nil {
			lastErr = o.Err
			errs = append(errs, map[string]string{"id": id, "message": o.Err.Message})
			continue
		}
		if rd == nil {
			d := u.rowsOf(r, s)
			rd = &d
		}
		html, err := u.renderRows(*rd, []*api.Mention{o.Data.(*api.Mention)})
		if err != nil {
			return nil, capability.Internal()
		}
		rows[id] = html
	}
	if len(rows) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return map[string]any{"rows": rows, "errors": errs, "status": status, "public_visibility": vis}, nil
}

// mentionData is the one-mention page.
type mentionData struct {
	Rows     rowsData
	M        *api.Mention
	Monitors []*api.Monitor // the monitors that matched it (still existing)
	Others   []*api.Mention // other mentions by the same author, newest first
	Label    string         // its category's label
	// Teamwork (team.go): who it can be assigned to, its notes and the
	// project's tags in use (suggestions).
	Members        []*api.Member
	Notes          []*api.Note
	TagSuggestions []string
	me             string
	owner          bool
	// Categories and Sentiments are the choices of the correction form
	// (correct_mention).
	Categories, Sentiments []string
}

// mention shows one mention with its triage controls: the target of the
// links in alert emails and Slack messages ({base}/mentions/{id}) and of
// Enter in the inbox. It shows the whole post, its classification and
// engagement, and the author's other mentions.
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
	m := o.Data.(*api.Mention)
	ms := u.listMonitors(r, pg.P)
	d := &mentionData{M: m, Rows: rowsData{CanWrite: pg.Can(capability.MentionsWrite), CSRF: pg.CSRF, Back: pg.Path, Labels: u.categoryLabels(r, pg.P), Zone: pg.Zone, Me: pg.User.ID,
		Items: []*api.Mention{m}, Single: true, Keywords: u.monitorKeywords(ms)}, Categories: vocab.Categories, Sentiments: vocab.Sentiments}
	d.Label = d.Rows.Labels[m.Category]
	if d.Label == "" {
		d.Label = label(m.Category)
	}
	for _, mon := range ms {
		if slices.Contains(m.MonitorIDs, mon.ID) || (m.MonitorID != nil && *m.MonitorID == mon.ID) {
			d.Monitors = append(d.Monitors, mon)
		}
	}
	if strings.TrimSpace(m.AuthorHandle) != "" {
		if lo := u.run(r.Context(), pg.P, "list_mentions", url.Values{"author_handle": {m.AuthorHandle}, "limit": {"11"}}, true); lo.Err == nil {
			for _, x := range lo.Data.(*capability.ListMentionsOut).Items {
				if x.ID != m.ID && x.Source == m.Source && len(d.Others) < 10 {
					d.Others = append(d.Others, x)
				}
			}
		}
	}
	u.teamData(r, pg, d)
	pg.Title = "Mention by " + byline(m.AuthorHandle, m.Source)
	pg.Data = d
	u.render(w, pg, "mention")
}

// setDensity keeps the inbox's row density in a cookie (a form, so it works
// without JavaScript) and returns to the page it came from.
func (u *UI) setDensity(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		u.toLogin(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
		u.forbidden(w, err)
		return
	}
	d := "compact"
	if r.PostFormValue("density") == "comfortable" {
		d = "comfortable"
	}
	u.setCookie(w, r, densityCookie, d, 365*24*3600)
	u.redirect(w, r, localPath(r.PostFormValue("_back"), "/"))
}

// exportCSV is the inbox's "Export CSV": export_mentions with the current
// filters, for the session, streamed as a download.
func (u *UI) exportCSV(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		u.toLogin(w, r)
		return
	}
	if s.cur == nil {
		u.redirect(w, r, "/projects/new")
		return
	}
	q := queueDefault(filterQuery(r.URL.Query()))
	q.Del("limit")
	o := u.run(r.Context(), s.p, "export_mentions", q, true)
	if o.Err != nil {
		u.renderBare(w, o.Err.Status, "error", map[string]any{"Title": "Export refused", "Message": plainErr(o.Err).Message})
		return
	}
	exp := o.Data.(*capability.CSVExport)
	w.Header().Set("Content-Type", exp.ContentType())
	w.Header().Set("Content-Disposition", `attachment; filename="`+exp.Filename()+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if err := exp.Stream(r.Context(), w); err != nil {
		u.log.Error("ui export", "err", err)
	}
}
