package ui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"earshot/capability"
)

// A capability's validation error speaks API: "min_urgency must be at most
// 100", "url: scheme must be https". A form shows it next to the control in
// the words of the control's label ("Minimum urgency must be 100 or less."),
// and shows every field's error at once, not only the first one the
// capability met.

// fieldLabels are the labels the forms give their controls, by parameter.
// A parameter not listed reads as its name in words ("scan_interval_minutes"
// → "Scan interval minutes").
var fieldLabels = map[string]string{
	"search": "Search text", "min_urgency": "Minimum urgency", "max_urgency": "Maximum urgency", "author_handle": "Author handle",
	"is_relevant": "Relevance", "date_preset": "Published", "since": "Published since", "until": "Published before",
	"collected_since": "Collected since", "limit": "Page size", "monitor_id": "Monitor", "url": "Endpoint URL",
	"keywords": "Keywords", "exclude_keywords": "Exclude keywords", "watch_accounts": "Watch accounts", "feed_urls": "Feed URLs",
	"review_urls": "Review page URLs", "backfill_hours": "Backfill", "scan_interval_minutes": "Scan every", "query_mode": "Match",
	"full_name": "Display name", "name": "Name", "email": "Email", "role": "Role", "target": "Target", "channel": "Channel",
	"events": "Events", "scopes": "Scopes", "current_password": "Current password", "new_password": "New password", "new_password_confirm": "New password again",
	"password": "Password", "group_id": "Keyword group", "website": "Website", "description": "Description",
	"confirmation_name": "Project name", "label": "Label", "keyword": "Keyword", "digest": "Delivery", "filters": "Filters",
	"public_visibility": "Public page", "sources": "Sources", "trigger": "Alert on",
}

// fieldLabel is the label of a parameter: "filters.min_urgency" and
// "keywords[2]" read as their field's label.
func fieldLabel(param string) string {
	name := param
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, "["); i >= 0 {
		name = name[:i]
	}
	if l, ok := fieldLabels[name]; ok {
		return l
	}
	if name == "" {
		return "This field"
	}
	s := strings.ReplaceAll(name, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

var (
	reAtMost  = regexp.MustCompile(`^must be at most (\d+)$`)
	reAtLeast = regexp.MustCompile(`^must be at least (\d+)$`)
	reChars   = regexp.MustCompile(`^must be at (most|least) (\d+) characters?$`)
	reItems   = regexp.MustCompile(`^must have at most (\d+) items$`)
	reIndex   = regexp.MustCompile(`\[(\d+)\]$`)
)

// plainMessage words an API validation message for a person.
func plainMessage(param, msg string) string {
	if param == "" {
		return sentence(msg)
	}
	label := fieldLabel(param)
	if strings.HasPrefix(msg, "a spike alert takes") { // create_alert/update_alert with trigger spike
		if param == "filters.sentiment" {
			return "A spike alert can watch all spikes or negative spikes only: choose Negative or Any."
		}
		return "A spike alert can be limited only to a monitor and to negative spikes: set " + label + " to Any."
	}
	rest, ok := strings.CutPrefix(msg, param+": ")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, param+" "); !ok {
			// Not about the field by name: replace the name where it occurs.
			return sentence(strings.ReplaceAll(msg, param, strings.ToLower(label)))
		}
	}
	which := label
	if m := reIndex.FindStringSubmatch(param); m != nil { // keywords[2] → the 3rd line
		var n int
		fmt.Sscan(m[1], &n)
		which = fmt.Sprintf("%s (line %d)", label, n+1)
	}
	switch {
	case rest == "is required" || rest == "must not be empty" || rest == "must not be blank" || rest == "must not be null":
		return which + " is required."
	case reChars.MatchString(rest):
		m := reChars.FindStringSubmatch(rest)
		if m[1] == "most" {
			return which + " can be at most " + m[2] + " characters long."
		}
		return which + " must be at least " + m[2] + " characters long."
	case reAtMost.MatchString(rest):
		return which + " must be " + reAtMost.FindStringSubmatch(rest)[1] + " or less."
	case reAtLeast.MatchString(rest):
		return which + " must be " + reAtLeast.FindStringSubmatch(rest)[1] + " or more."
	case reItems.MatchString(rest):
		return which + " can hold at most " + reItems.FindStringSubmatch(rest)[1] + " entries."
	case strings.HasPrefix(rest, "must be one of "):
		opts := strings.Split(strings.TrimPrefix(rest, "must be one of "), ", ")
		for i, o := range opts {
			opts[i] = label2(o)
		}
		return which + ": choose one of " + strings.Join(opts, ", ") + "."
	case rest == "must be an integer" || rest == "must be a number":
		return which + " must be a whole number."
	case rest == "must be a boolean":
		return which + " must be yes or no."
	case rest == "must be a UUID":
		return which + ": choose one from the list."
	case strings.HasPrefix(rest, "must be an ISO 8601"):
		return which + " must be a date like 2026-09-02, or a date and time like 2026-09-02T10:00:00Z."
	case rest == "must be an email address":
		return which + " must be an email address, like name@example.com."
	case rest == "must be an absolute http(s) URL" || strings.Contains(rest, "scheme must be") || strings.Contains(rest, "must be a URL"):
		return which + " must be a full web address starting with https://, like https://example.com/hook."
	}
	if strings.HasPrefix(rest, "must ") || strings.HasPrefix(rest, "is ") || strings.HasPrefix(rest, "may ") {
		return sentence(which + " " + rest)
	}
	return which + ": " + sentence(rest)
}

// label2 is an option's label when it has one ("last_7_days" → "Last 7 days").
func label2(s string) string {
	if l, ok := labels[s]; ok {
		return l
	}
	if n, ok := sourceNames[s]; ok {
		return n
	}
	return s
}

// sentence capitalizes s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// plainErr is e with its message in plain words (a copy).
func plainErr(e *capability.Error) *capability.Error {
	if e == nil {
		return nil
	}
	c := *e
	if e.Status == 400 {
		c.Message = plainMessage(e.Param, e.Message)
	}
	return &c
}

// rootParam is the form field a parameter belongs to ("filters.status" →
// "filters.status", "keywords[1]" → "keywords").
func rootParam(p string) string {
	if i := strings.Index(p, "["); i >= 0 {
		return p[:i]
	}
	return p
}

// allErrors is every field's validation error of a form whose submit
// failed with first: the capability stops at its first error, so each
// other field is validated on its own (with no field required, so a
// missing one does not hide the rest), and every required field left
// empty is named. A failure that is not about a field is first alone.
func (u *UI) allErrors(name string, vals url.Values, query bool, first *capability.Error) []*capability.Error {
	if first == nil {
		return nil
	}
	out := []*capability.Error{plainErr(first)}
	c, ok := u.svc.Capability(name)
	if !ok || first.Status != 400 || first.Param == "" {
		return out
	}
	loose := *c
	loose.Fields = slices.Clone(c.Fields)
	for i := range loose.Fields {
		loose.Fields[i].Required = false
	}
	raw := formValues(c, vals, query)
	seen := map[string]bool{rootParam(first.Param): true}
	for _, f := range c.Fields {
		if seen[f.Name] {
			continue
		}
		r, sent := raw[f.Name]
		empty := !sent || string(r) == "null" || string(r) == `""` || string(r) == "[]"
		if f.Required && empty {
			if _, isPath := vals[f.Name]; f.In == "path" && !isPath {
				continue
			}
			out = append(out, plainErr(capability.Invalid(f.Name, "%s is required", f.Name)))
			seen[f.Name] = true
			continue
		}
		if !sent {
			continue
		}
		if _, err := loose.Decode(map[string]json.RawMessage{f.Name: r}, nil); err != nil {
			if e, ok := capability.AsError(err, f.Name); ok && e.Param != "" && strings.HasPrefix(rootParam(e.Param), f.Name) && !seen[rootParam(e.Param)] {
				out = append(out, plainErr(e))
				seen[rootParam(e.Param)] = true
			}
		}
	}
	return out
}
