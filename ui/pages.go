package ui

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/api"
	"earshot/capability"
	"earshot/vocab"
)

// listPage renders a page whose data is one capability's output.
func (u *UI) listPage(w http.ResponseWriter, r *http.Request, pg *page, tpl, capName string, in url.Values) {
	o := u.run(r.Context(), pg.P, capName, in, true)
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	pg.Data = o.Data
	u.render(w, pg, tpl)
}

type groupsData struct {
	Groups  []*api.KeywordGroup
	SOV     *capability.SOVOut
	SOVErr  *capability.Error
	Chart   chart // wide
	Narrow  chart // the same at phone width
	Bars    []shareBar
	Preset  string
	Presets []string
}

// sovPresets are the windows the share-of-voice page offers: the report's
// bounded presets less the ones too short to compare groups over (today,
// last_24_hours).
var sovPresets = slices.DeleteFunc(slices.Clone(vocab.BoundedDatePresets), func(p string) bool { return p == "today" || p == "last_24_hours" })

func (u *UI) groups(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Share of voice", "groups"
	d := &groupsData{Groups: u.keywordGroups(r, pg.P), Preset: r.URL.Query().Get("date_preset"),
		Presets: sovPresets}
	if d.Preset == "" {
		d.Preset = pg.Default("get_share_of_voice", "date_preset").(string) // the report's own default window
	}
	o := u.run(r.Context(), pg.P, "get_share_of_voice", url.Values{"date_preset": {d.Preset}}, true)
	if o.Err != nil {
		d.SOVErr = o.Err
	} else {
		d.SOV = o.Data.(*capability.SOVOut)
		d.Chart, d.Narrow = sovCharts(d.SOV)
		d.Bars = shareBars(d.SOV, u.groupSentiment(r, pg.P, d.SOV))
	}
	pg.Data = d
	u.render(w, pg, "groups")
}

type alertsData struct {
	Alerts   []*api.Alert
	Options  map[string][]string
	Monitors []*api.Monitor // for the "Only monitor" filter
}

// FilterWords is an alert's filters in words, a monitor by its name.
func (d *alertsData) FilterWords(raw json.RawMessage) string {
	q := viewQuery(raw)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		v := q.Get(k)
		switch k {
		case "monitor_id":
			name := "a deleted monitor"
			for _, m := range d.Monitors {
				if m.ID == v {
					name = m.Name
				}
			}
			parts = append(parts, "Monitor: "+name)
		case "source":
			parts = append(parts, "Source: "+sourceName(v))
		case "search", "author_handle", "since", "until":
			parts = append(parts, fieldLabel(k)+": “"+v+"”")
		default:
			parts = append(parts, fieldLabel(k)+": "+label(v))
		}
	}
	return strings.Join(parts, ", ")
}

func (u *UI) alerts(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Alerts", "alerts"
	o := u.exec(r.Context(), pg.P, "list_alerts", &capability.Empty{})
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	pg.Data = &alertsData{Alerts: o.Data.(*capability.AlertsOut).Alerts, Options: filterOptions, Monitors: u.listMonitors(r, pg.P)}
	u.render(w, pg, "alerts")
}

func (u *UI) webhooks(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Webhooks", "webhooks"
	if !pg.Can(capability.WebhooksWrite) {
		u.failPage(w, pg, capability.Forbidden("your role cannot manage webhooks"))
		return
	}
	u.listPage(w, r, pg, "webhooks", "list_webhooks", nil)
}

type deliveriesData struct {
	Webhook *api.Webhook
	Out     *capability.DeliveriesOut
	Status  string
}

func (u *UI) webhookDeliveries(w http.ResponseWriter, r *http.Request, pg *page, ps httprouter.Params) {
	pg.Title, pg.Nav = "Webhook deliveries", "webhooks"
	q := url.Values{"id": {ps.ByName("id")}}
	for _, k := range []string{"status", "cursor"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	o := u.run(r.Context(), pg.P, "list_webhook_deliveries", q, true)
	if isMissing(o.Err) {
		u.notFoundPage(w, r, pg)
		return
	}
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	d := &deliveriesData{Out: o.Data.(*capability.DeliveriesOut), Status: q.Get("status")}
	if lo := u.exec(r.Context(), pg.P, "list_webhooks", &capability.Empty{}); lo.Err == nil {
		for _, wh := range lo.Data.(*capability.WebhooksOut).Webhooks {
			if wh.ID == ps.ByName("id") {
				d.Webhook = wh
			}
		}
	}
	pg.Data = d
	u.render(w, pg, "deliveries")
}

func (u *UI) categories(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Categories", "categories"
	u.listPage(w, r, pg, "categories", "list_categories", nil)
}

// membersData is the members page: the members and, for those who may
// manage them, the pending invitations.
type membersData struct {
	Members     []*api.Member
	Invitations []capability.InvitationOut
}

func (u *UI) members(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Members", "members"
	o := u.run(r.Context(), pg.P, "list_members", nil, true)
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	d := &membersData{Members: o.Data.(*capability.MembersOut).Members}
	if pg.Can("projects:write") {
		if inv := u.run(r.Context(), pg.P, "list_invitations", nil, true); inv.Err == nil {
			d.Invitations = inv.Data.(*capability.InvitationsOut).Invitations
		}
	}
	pg.Data = d
	u.render(w, pg, "members")
}

func (u *UI) keys(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "API keys", "keys"
	o := u.exec(r.Context(), pg.P, "list_api_keys", &capability.Empty{})
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	pg.Data = map[string]any{"Keys": o.Data.(*capability.KeysOut).Keys, "Scopes": capability.AllScopes, "RoleScopes": capability.RoleScopes[pg.P.Role]}
	u.render(w, pg, "keys")
}

type usageData struct {
	*capability.UsageOut
	Wide, Narrow chart // mentions stored per day
	Sum          int
}

type accountData struct {
	*capability.Account
	PasswordForm bool // change_password is served
}

// Zones suggests common IANA zones for the time zone field (any valid
// name is accepted; capability.CheckTimeZone decides).
func (accountData) Zones() []string {
	return []string{"UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome", "Europe/Warsaw", "Europe/Kyiv",
		"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto", "America/Sao_Paulo", "America/Mexico_City",
		"Asia/Tokyo", "Asia/Shanghai", "Asia/Singapore", "Asia/Kolkata", "Asia/Dubai", "Australia/Sydney", "Pacific/Auckland", "Africa/Johannesburg"}
}

func (u *UI) account(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Account", "account"
	_, canChange := u.svc.Capability("change_password")
	pg.Data = &accountData{Account: pg.User, PasswordForm: canChange}
	u.render(w, pg, "account")
}

func (u *UI) usage(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Usage", "usage"
	o := u.exec(r.Context(), pg.P, "get_usage", &capability.Empty{})
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	out := o.Data.(*capability.UsageOut)
	d := &usageData{UsageOut: out}
	if len(out.Days) > 0 {
		days := make([]stackDay, 0, len(out.Days))
		for _, day := range out.Days {
			d.Sum += day.Mentions
			days = append(days, stackDay{Date: day.Date, Segs: []stackSeg{{Count: day.Mentions, Color: "#0b5cad", Name: "mentions stored"}}})
		}
		desc := fmt.Sprintf("Bars of mentions stored per day from %s to %s (today so far last): %d in all.", out.Days[0].Date, out.Days[len(out.Days)-1].Date, d.Sum)
		d.Wide = stackChart("use-w", "Mentions stored per day", desc, days, 720, nil)
		d.Narrow = stackChart("use-n", "Mentions stored per day", desc, days, 360, nil)
	}
	pg.Data = d
	u.render(w, pg, "usage")
}

func (u *UI) settings(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Project settings", "settings"
	u.listPage(w, r, pg, "settings", "get_project", url.Values{"id": {pg.Project.ID}})
}

// groupSentiment counts each keyword group's relevant mentions per
// sentiment over the share-of-voice window: get_mention_stats for each of
// the group's monitors (nil when the statistics are not served).
func (u *UI) groupSentiment(r *http.Request, p *capability.Principal, sov *capability.SOVOut) map[string]map[string]int {
	if _, ok := u.svc.Capability("get_mention_stats"); !ok {
		return nil
	}
	out := map[string]map[string]int{}
	for _, m := range u.listMonitors(r, p) {
		if m.GroupID == nil {
			continue
		}
		st := u.mentionStats(r, p, url.Values{"monitor_id": {m.ID}, "is_relevant": {"true"}, "since": {sov.Since}, "until": {sov.Until}, "interval": {"day"}})
		if st == nil {
			continue
		}
		c := out[*m.GroupID]
		if c == nil {
			c = map[string]int{}
			out[*m.GroupID] = c
		}
		c["positive"] += st.Totals.Positive
		c["neutral"] += st.Totals.Neutral
		c["negative"] += st.Totals.Negative
	}
	return out
}
