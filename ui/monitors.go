package ui

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"earshot/api"
	"earshot/capability"
	"earshot/vocab"
)

type monitorsData struct {
	Monitors []*api.Monitor
	Groups   map[string]string
	Sparks   map[string]sparkline // monitor id → its last 30 days (nil: no statistics)
}

func (u *UI) monitors(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Monitors", "monitors"
	d := &monitorsData{Groups: map[string]string{}}
	o := u.exec(r.Context(), pg.P, "list_monitors", &capability.Empty{})
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	d.Monitors = o.Data.(*capability.MonitorsOut).Monitors
	for _, g := range u.keywordGroups(r, pg.P) {
		d.Groups[g.ID] = g.Name
	}
	if st := u.mentionStats(r, pg.P, url.Values{"group_by": {"monitor"}, "interval": {"day"}, "date_preset": {"last_30_days"}}); st != nil {
		d.Sparks = map[string]sparkline{}
		for _, ms := range st.Monitors {
			d.Sparks[ms.MonitorID] = newSparkline(ms.Counts, ms.Total)
		}
	}
	pg.Data = d
	u.render(w, pg, "monitors")
}

func (u *UI) keywordGroups(r *http.Request, p *capability.Principal) []*api.KeywordGroup {
	if o := u.exec(r.Context(), p, "list_keyword_groups", &capability.Empty{}); o.Err == nil {
		return o.Data.(*capability.GroupsOut).KeywordGroups
	}
	return nil
}

type monitorFormData struct {
	M         *api.Monitor
	New       bool
	Cap       string
	Groups    []*api.KeywordGroup
	Sources   []string
	Backfills []int
	Modes     []string
}

// monitorForm is the create (/monitors/new) and edit form.
func (u *UI) monitorForm(w http.ResponseWriter, r *http.Request, pg *page, ps httprouter.Params) {
	pg.Nav = "monitors"
	d := &monitorFormData{Sources: vocab.Sources, Backfills: u.backfills(), Modes: vocab.QueryModes,
		Groups: u.keywordGroups(r, pg.P)}
	id := ps.ByName("id")
	if id == "new" {
		pg.Title, d.New, d.Cap = "New monitor", true, "create_monitor"
		if !pg.Can(capability.MonitorsWrite) {
			e := capability.Forbidden("Your role can view monitors but not create them.")
			if pg.Err != nil {
				e = pg.Err // a refused create, re-rendered: the capability's own words
			}
			u.failPage(w, pg, e)
			return
		}
		// A new monitor's form starts from the API's defaults.
		d.M = &api.Monitor{QueryMode: pg.Default("create_monitor", "query_mode").(string), Sources: vocab.Sources,
			BackfillHours: pg.Default("create_monitor", "backfill_hours").(int), ScanIntervalMinutes: pg.Default("create_monitor", "scan_interval_minutes").(int)}
	} else {
		o := u.run(r.Context(), pg.P, "get_monitor", url.Values{"id": {id}}, false)
		if isMissing(o.Err) {
			u.notFoundPage(w, r, pg)
			return
		}
		if o.Err != nil {
			u.failPage(w, pg, o.Err)
			return
		}
		d.M, d.Cap = o.Data.(*api.Monitor), "update_monitor"
		pg.Title = "Edit " + d.M.Name
	}
	pg.Data = d
	u.render(w, pg, "monitor_form")
}

// preview runs preview_monitor on the draft in the form and returns the
// rendered matches.
func (u *UI) preview(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	vals := url.Values{}
	for _, k := range []string{"keywords", "exclude_keywords", "query_mode", "watch_accounts", "sources"} {
		if v, ok := r.Form[k]; ok {
			vals[k] = v
		}
	}
	vals.Set("limit", "10")
	o := u.run(r.Context(), s.p, "preview_monitor", vals, true) // empty draft lists are left out
	if o.Err != nil {
		return nil, o.Err
	}
	out := o.Data.(*capability.PreviewOut)
	html, ferr := u.fragment("monitor_form", "preview", out)
	if ferr != nil {
		u.log.Error("preview", "err", ferr)
		return nil, capability.Internal()
	}
	return map[string]any{"html": html, "matched": out.Matched, "scanned": out.Scanned, "summary": strconv.Itoa(out.Matched) + " of the " + strconv.Itoa(out.Scanned) + " newest stored mentions match"}, nil
}

// failPage renders an error (404, 403…) inside the layout.
func (u *UI) failPage(w http.ResponseWriter, pg *page, e *capability.Error) {
	pg.Status = e.Status
	if pg.Title == "" {
		pg.Title = "Error"
	}
	pg.Data = e
	u.render(w, pg, "fail")
}

// isMissing reports whether an item read failed because the path names no
// item: not found, or an id that cannot be one (not a UUID). A person
// following a stale or mistyped link gets "Page not found" either way.
func isMissing(e *capability.Error) bool {
	return e != nil && (e.Status == http.StatusNotFound || e.Status == http.StatusBadRequest && e.Param == "id")
}

// notFoundPage is the dashboard's 404: the layout, so the navigation leads
// back.
func (u *UI) notFoundPage(w http.ResponseWriter, r *http.Request, pg *page) {
	pg.Title, pg.Nav, pg.Status, pg.Data = "Page not found", "", http.StatusNotFound, r.URL.Path
	u.render(w, pg, "notfound")
}

// NotFound answers the addresses no route takes (the server's hook for
// non-API paths): the dashboard's 404 page for a logged-in user, a plain
// page with a link to log in for anyone else. A logged-in session's
// request is charged to its rate-limit bucket, as every page's is.
func (u *UI) NotFound(w http.ResponseWriter, r *http.Request) {
	u.metered(func(httprouter.Params) int { return 1 }, u.notFound)(w, r, nil)
}

func (u *UI) notFound(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		if !errors.Is(err, errNoSession) {
			u.log.Error("ui not found", "path", r.URL.Path, "err", err)
		}
		u.renderBare(w, http.StatusNotFound, "error", map[string]any{"Title": "Page not found", "LogIn": true,
			"Message": "There is no page at this address."})
		return
	}
	u.notFoundPage(w, r, u.newPage(w, r, s))
}

// backfills are the backfill windows create_monitor allows (its enum), for
// the form's choices.
func (u *UI) backfills() []int {
	var out []int
	if c, ok := u.svc.Capability("create_monitor"); ok {
		if f, ok := c.Field("backfill_hours"); ok {
			for _, v := range f.Enum {
				if n, err := strconv.Atoi(v); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}
