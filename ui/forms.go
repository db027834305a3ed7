package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// formValues turns HTML form (or query) values into the raw JSON values
// Capability.Decode takes, guided by the declared field types, so forms get
// exactly the validation REST and MCP get. query drops every empty value
// (an empty filter control means "no filter"). A form keeps an empty text
// field: a blanked name reaches the capability, which refuses it as REST
// does, instead of being dropped and the rest of the form saved.
func formValues(c *capability.Capability, vals url.Values, query bool) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, f := range c.Fields {
		if t := deref(f.Type); t.Kind() == reflect.Struct && t != reflect.TypeFor[capability.NullString]() {
			if obj := structValues(t, f.Name+".", vals, query); obj != nil {
				out[f.Name] = obj
			}
			continue
		}
		vs, ok := vals[f.Name]
		if !ok {
			continue
		}
		if raw, ok := fieldValue(f, vs, query); ok {
			out[f.Name] = raw
		}
	}
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// structValues builds a nested object (e.g. filters) from "prefix.key"
// values; nil when none is sent. A form whose controls are all left at
// "Any" sends an empty object: an edit form's filters then replace the
// stored ones (cleared), as they read.
func structValues(t reflect.Type, prefix string, vals url.Values, query bool) json.RawMessage {
	obj := map[string]json.RawMessage{}
	sent := false
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name := strings.Split(sf.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		vs, ok := vals[prefix+name]
		if !ok {
			continue
		}
		sent = true
		f := capability.Field{Name: name, Type: sf.Type}
		if raw, ok := fieldValue(f, vs, true); ok {
			obj[name] = raw
		}
	}
	if len(obj) == 0 {
		if sent && !query {
			return json.RawMessage("{}")
		}
		return nil
	}
	b, _ := json.Marshal(obj)
	return b
}

func fieldValue(f capability.Field, vs []string, query bool) (json.RawMessage, bool) {
	last := ""
	if len(vs) > 0 {
		last = vs[len(vs)-1]
	}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	if f.Type == reflect.TypeFor[capability.NullString]() {
		if strings.TrimSpace(last) == "" {
			if query {
				return nil, false
			}
			return json.RawMessage("null"), true
		}
		return str(last), true
	}
	t := deref(f.Type)
	switch t.Kind() {
	case reflect.String:
		// An empty select ("Any", "None") or format-checked control means
		// "not set"; free text is sent as typed.
		if last == "" && !f.Required && (query || f.Format != "" || len(f.Enum) > 0) {
			return nil, false
		}
		return str(last), true
	case reflect.Int, reflect.Int64:
		s := strings.TrimSpace(last)
		if s == "" {
			return nil, false
		}
		if _, err := strconv.Atoi(s); err != nil {
			return str(s), true // Decode reports the type error against this field
		}
		return json.RawMessage(s), true
	case reflect.Bool:
		switch strings.ToLower(strings.TrimSpace(last)) {
		case "true", "on", "1", "yes":
			return json.RawMessage("true"), true
		case "false", "0", "no", "off":
			return json.RawMessage("false"), true
		case "":
			return nil, false
		}
		return str(last), true
	case reflect.Slice:
		items := []string{}
		sep := func(r rune) bool { return r == '\n' || r == '\r' || (f.Format != "uri" && r == ',') }
		for _, v := range vs {
			for _, part := range strings.FieldsFunc(v, sep) {
				if p := strings.TrimSpace(part); p != "" {
					items = append(items, p)
				}
			}
		}
		if query && len(items) == 0 {
			return nil, false
		}
		b, _ := json.Marshal(items)
		return b, true
	}
	return str(last), true
}

// decode builds a capability input from form values.
func (u *UI) decode(name string, vals url.Values, query bool) (any, *capability.Error) {
	c, ok := u.svc.Capability(name)
	if !ok {
		return nil, capability.NotFound("operation")
	}
	in, err := c.Decode(formValues(c, vals, query), nil)
	if err != nil {
		e, _ := capability.AsError(err, "input")
		return nil, e
	}
	return in, nil
}

// run decodes and executes in one step.
func (u *UI) run(ctx context.Context, p *capability.Principal, name string, vals url.Values, query bool) capability.Outcome {
	in, e := u.decode(name, vals, query)
	if e != nil {
		return capability.Outcome{Status: e.Status, Err: e}
	}
	return u.exec(ctx, p, name, in)
}

// showsSecret reports whether a capability's result may carry a secret
// shown once (the catalogue's Secrets): the page the form returns to shows
// the result in place of a flash.
func showsSecret(c *capability.Capability) bool { return len(c.Secrets) > 0 }

// doneMessage is the flash after a successful form: what happened, in
// words, derived from the capability's name ("update_project" → "Project
// saved.", "create_keyword_group" → "Keyword group created."). A pause,
// resume, enable or disable (a form with only active or enabled) says
// which; a few outcomes are told in full.
func doneMessage(name string, form url.Values) string {
	if m, ok := doneMessages[name]; ok {
		return m
	}
	verb, obj, _ := strings.Cut(name, "_")
	noun, ok := objectNames[obj]
	if !ok {
		noun = strings.ReplaceAll(obj, "_", " ")
	}
	past := pastTense[verb]
	if verb == "update" && len(form) == 2 && form.Has("id") {
		switch {
		case form.Has("active"):
			past = map[string]string{"true": "resumed", "false": "paused"}[form.Get("active")]
		case form.Has("enabled"):
			past = map[string]string{"true": "enabled", "false": "disabled"}[form.Get("enabled")]
		}
	}
	if name == "update_story_status" {
		return "Every mention of the story marked " + strings.ToLower(label(form.Get("status"))) + "."
	}
	if name == "set_public_dashboard" {
		past = map[string]string{"true": "published", "false": "unpublished"}[form.Get("enabled")]
	}
	if past == "" {
		past = "saved"
	}
	return strings.ToUpper(noun[:1]) + noun[1:] + " " + past + "."
}

var (
	pastTense = map[string]string{"create": "created", "update": "saved", "delete": "deleted", "remove": "removed", "revoke": "revoked",
		"invite": "invited", "rotate": "rotated", "replay": "replayed as a new delivery", "set": "updated"}
	objectNames = map[string]string{"api_key": "API key", "project_member": "member", "mention_view": "view",
		"webhook_secret": "webhook signing secret", "webhook_delivery": "delivery", "public_dashboard": "public page", "keyword": "keyword"}
	doneMessages = map[string]string{
		"update_mention_status": "Status changed.", "correct_mention": "Classification corrected; this project's classifier learns from it.", "create_monitor": "Monitor created; the first scan has started.",
		"delete_monitor": "Monitor deleted; its mentions stay.", "delete_project": "Project archived.",
		"update_project_member": "Role changed.", "update_keyword": "Keywords replaced.", "delete_keyword": "Keyword deleted from every monitor.",
		"delete_category": "Category disabled; its new mentions are filed as Other.",
		"change_password": "Password changed. Your other sessions were logged out; this one stays.",
	}
)

// action is POST /a/{capability}: the generic form binding. It decodes the
// form into the capability's input, executes it for the session, then
// redirects back (303) with a flash message, or re-renders the page it came
// from with the error next to its field (or with a secret to show once).
func (u *UI) action(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		u.toLogin(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
		u.forbidden(w, err)
		return
	}
	name := ps.ByName("cap")
	c, ok := u.svc.Capability(name)
	if !ok || !c.Write {
		http.NotFound(w, r)
		return
	}
	back := localPath(r.PostForm.Get("_back"), "/")
	p := s.p
	if c.NoProject {
		p = s.d.UserPrincipal()
	}
	form := url.Values{}
	for k, v := range r.PostForm {
		if !strings.HasPrefix(k, "_") {
			form[k] = v
		}
	}
	var o capability.Outcome
	if e := confirmed(form); e != nil {
		o = capability.Outcome{Status: e.Status, Err: e}
	} else {
		o = u.run(r.Context(), p, name, form, false)
	}
	if o.Err != nil {
		errs := u.allErrors(name, form, false, o.Err)
		u.putStash(w, r, s, back, &actionState{err: errs[0], errs: errs, cap: name, key: formKey(name, r.PostForm.Get("_form")), form: form})
		u.redirect(w, r, back)
		return
	}
	switch name {
	case "create_project":
		if out, ok := o.Data.(*capability.CreateProjectOut); ok {
			u.setCookie(w, r, projectCookie, out.ID, 365*24*3600)
		}
		back = "/"
	case "create_monitor":
		back = "/monitors"
	case "change_password":
		// Its answer says what ended: the other sessions and the API keys
		// sessions had made (revoked with the change).
		if out, ok := o.Data.(*capability.ChangePasswordOut); ok {
			u.setCookie(w, r, flashCookie, url.QueryEscape(out.Message), 60)
			u.redirect(w, r, back)
			return
		}
	default:
		if showsSecret(c) {
			u.putStash(w, r, s, back, &actionState{cap: name, result: o.Data})
			u.redirect(w, r, back)
			return
		}
	}
	u.setCookie(w, r, flashCookie, url.QueryEscape(doneMessage(name, form)), 60)
	u.redirect(w, r, back)
}

// confirmed checks a form's "X_confirm" fields (a new password typed
// twice): each must equal X. The capability never sees them.
func confirmed(form url.Values) *capability.Error {
	for k := range form {
		if f, ok := strings.CutSuffix(k, "_confirm"); ok {
			if form.Get(k) != form.Get(f) {
				return capability.Invalid(k, "the two %s entries differ; type the same twice", strings.ReplaceAll(f, "_", " "))
			}
			delete(form, k)
		}
	}
	return nil
}

// formKey is the key of the submitted form: its _form field when that names
// a form of this capability ("update_alert:{id}"), else the capability.
func formKey(capName, sent string) string {
	if strings.HasPrefix(sent, capName+":") {
		return sent
	}
	return capName
}

func (u *UI) forbidden(w http.ResponseWriter, err error) {
	u.renderBare(w, http.StatusForbidden, "error", map[string]any{"Title": "Request refused", "Message": "This form has expired or came from another site (" + err.Error() + "). Go back, reload the page and try again."})
}
