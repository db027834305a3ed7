package ui

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// The invitation page, /invite/{token}: the one-time link of invite_member.
// A logged-in person accepts with one button (joining as the account they
// are logged in with). Someone without a session chooses a password for the
// invited email, then logs in and accepts. Choosing a password never
// changes an existing account's password, and the page answers the same
// whether the email had an account, so the link reveals nothing about
// accounts to whoever holds it.

type inviteData struct {
	Title, CSRF, Token, Error, Param string
	Invite                           *capability.InvitationPreview
	LoggedInAs                       string
	WrongAccount                     bool // logged in as another email than the invited one: it cannot accept
	SignedUp                         bool // the choose-a-password step is done: log in next
	Public                           bool
}

func (d inviteData) FieldErr(name string) string {
	if d.Param == name {
		return d.Error
	}
	return ""
}

// MountInvites registers the invitation page on r.
func (u *UI) MountInvites(r *httprouter.Router) {
	r.GET("/invite/:token", u.invitePage)
	r.POST("/invite/:token", u.inviteSubmit)
	u.mountReset(r)
}

func (u *UI) inviteHeaders(w http.ResponseWriter) {
	// The token is in the path: no cache may keep the page (every page's
	// Referrer-Policy, same-origin, keeps it from other sites).
	w.Header().Set("Cache-Control", "no-store")
}

func (u *UI) invitePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	u.inviteHeaders(w)
	d := inviteData{Title: "Invitation", Token: ps.ByName("token")}
	u.renderInvite(w, r, http.StatusOK, d)
}

// renderInvite fills the invitation and the viewer's state, then renders.
func (u *UI) renderInvite(w http.ResponseWriter, r *http.Request, status int, d inviteData) {
	inv, err := u.svc.PreviewInvitation(r.Context(), d.Token)
	if err != nil {
		e, known := capability.AsError(err, "invitation")
		if !known {
			u.serverError(w, r, err)
			return
		}
		d.Error, d.Param = "This invitation link is not valid: it was already used, withdrawn or has expired, or it was copied incompletely. Ask the project's owner for a new one.", ""
		if e.Status == http.StatusNotFound {
			status = http.StatusNotFound
		} else {
			status = http.StatusGone
		}
		d.CSRF = u.preCSRF(w, r)
		u.renderBare(w, status, "invite", d)
		return
	}
	d.Invite = inv
	if s, err := u.loadSession(r); err == nil && s != nil {
		d.LoggedInAs = s.user.Email
		d.WrongAccount = !strings.EqualFold(s.user.Email, inv.Email)
		d.CSRF = csrfToken(s.token)
	} else {
		d.CSRF = u.preCSRF(w, r)
	}
	u.renderBare(w, status, "invite", d)
}

func (u *UI) inviteSubmit(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	u.inviteHeaders(w)
	token := ps.ByName("token")
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	r.ParseForm()
	d := inviteData{Title: "Invitation", Token: token}
	switch r.PostFormValue("action") {
	case "accept":
		s, err := u.loadSession(r)
		if err != nil || s == nil {
			u.redirect(w, r, "/login?next="+url.QueryEscape("/invite/"+token))
			return
		}
		if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
			u.forbidden(w, err)
			return
		}
		o := u.exec(r.Context(), s.d.UserPrincipal(), "accept_invitation", &capability.AcceptInvitationIn{Token: token})
		if o.Err != nil {
			d.Error = o.Err.Message
			u.renderInvite(w, r, o.Err.Status, d)
			return
		}
		out := o.Data.(*capability.AcceptInvitationOut)
		u.setCookie(w, r, projectCookie, out.ProjectID, 365*24*3600)
		u.setCookie(w, r, flashCookie, url.QueryEscape("You joined "+out.ProjectName+" as "+out.Role+"."), 60)
		u.redirect(w, r, "/")
	case "signup":
		if err := u.checkPreCSRF(r); err != nil {
			u.forbidden(w, err)
			return
		}
		err := u.svc.SignUpWithInvitation(r.Context(), token, r.PostFormValue("password"), strings.TrimSpace(r.PostFormValue("full_name")))
		if err != nil {
			e, known := capability.AsError(err, "invitation")
			if !known {
				u.serverError(w, r, err)
				return
			}
			d.Error, d.Param = e.Message, e.Param
			u.renderInvite(w, r, e.Status, d)
			return
		}
		d.SignedUp = true
		u.renderInvite(w, r, http.StatusOK, d)
	default:
		d.Error = "Choose to accept the invitation or to set your password."
		u.renderInvite(w, r, http.StatusBadRequest, d)
	}
}
