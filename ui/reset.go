package ui

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// Password reset by email (capability/password_reset.go): "Forgot
// password?" on the login page (only when SMTP is configured), a form for
// the address, and the emailed link's page to choose a new password.

type resetData struct {
	authData
	Sent  bool   // the request was taken: the one answer, whatever the address
	Token string // the reset page's token
	Valid bool   // the token still works
	Done  bool
}

func (u *UI) mountReset(r *httprouter.Router) {
	r.GET("/forgot-password", u.forgotPage)
	r.POST("/forgot-password", u.forgotSubmit)
	r.GET("/reset-password/:token", u.resetPage)
	r.POST("/reset-password/:token", u.resetSubmit)
}

func (u *UI) forgotPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !u.svc.PasswordResetByEmail() {
		u.renderBare(w, http.StatusNotFound, "forgot", resetData{authData: authData{Title: "Password reset", Error: noSMTPReset}})
		return
	}
	u.renderBare(w, http.StatusOK, "forgot", resetData{authData: authData{Title: "Forgot your password?", CSRF: u.preCSRF(w, r)}})
}

// noSMTPReset is what the reset pages say without SMTP.
const noSMTPReset = "Password reset by email is not set up on this server. Ask its operator to reset your password (earshot user set-password)."

func (u *UI) forgotSubmit(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !u.preForm(w, r) {
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	d := resetData{authData: authData{Title: "Forgot your password?", CSRF: u.preCSRF(w, r), Email: email}}
	o := u.session(r, nil, capability.RequestPasswordReset, &capability.RequestPasswordResetIn{Email: email})
	if o.Err != nil {
		d.Error, d.Param = o.Err.Message, o.Err.Param
		u.renderBare(w, o.Err.Status, "forgot", d)
		return
	}
	d.Sent = true
	u.renderBare(w, http.StatusOK, "forgot", d)
}

func (u *UI) resetPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	w.Header().Set("Cache-Control", "no-store") // the token is in the path
	tok := ps.ByName("token")
	d := resetData{authData: authData{Title: "Choose a new password", CSRF: u.preCSRF(w, r)}, Token: tok, Valid: u.svc.CheckResetToken(r.Context(), tok)}
	status := http.StatusOK
	if !d.Valid {
		status = http.StatusNotFound
	}
	u.renderBare(w, status, "reset", d)
}

func (u *UI) resetSubmit(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	w.Header().Set("Cache-Control", "no-store")
	if !u.preForm(w, r) {
		return
	}
	tok := ps.ByName("token")
	d := resetData{authData: authData{Title: "Choose a new password", CSRF: u.preCSRF(w, r)}, Token: tok, Valid: true}
	pw := r.PostFormValue("new_password")
	if pw != r.PostFormValue("new_password_confirm") {
		d.Error, d.Param = "The two new password entries differ; type the same twice.", "new_password_confirm"
		u.renderBare(w, http.StatusBadRequest, "reset", d)
		return
	}
	o := u.session(r, nil, capability.ResetPassword, &capability.ResetPasswordIn{Token: tok, NewPassword: pw})
	if o.Err != nil {
		d.Error, d.Param = o.Err.Message, o.Err.Param
		d.Valid = o.Err.Param != "token"
		u.renderBare(w, o.Err.Status, "reset", d)
		return
	}
	d.Done = true
	u.renderBare(w, http.StatusOK, "reset", d)
}
