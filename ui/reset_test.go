package ui_test

import (
	"bufio"
	"context"
	"io"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"earshot/deliver"
)

// loopSMTP is the smallest SMTP server net/smtp talks to (EHLO, MAIL,
// RCPT, DATA, QUIT; no TLS, no AUTH), on loopback; each message's DATA
// goes to msgs.
func loopSMTP(t *testing.T) (addr string, msgs chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	msgs = make(chan []byte, 8)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSMTP(conn, msgs)
		}
	}()
	return ln.Addr().String(), msgs
}

func serveSMTP(conn net.Conn, msgs chan<- []byte) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	say := func(s string) { io.WriteString(conn, s+"\r\n") }
	say("220 localhost ESMTP test")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-localhost")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "DATA"):
			say("354 go on")
			var data []byte
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data = append(data, strings.TrimPrefix(l, ".")...)
			}
			msgs <- data
			say("250 queued")
		case strings.HasPrefix(cmd, "QUIT"):
			say("221 bye")
			return
		default: // MAIL, RCPT, RSET, NOOP
			say("250 OK")
		}
	}
}

// waitMail waits (minutes, not machine speed) for the next message and
// returns its decoded text body.
func waitMail(t *testing.T, msgs chan []byte) (to, body string) {
	t.Helper()
	select {
	case raw := <-msgs:
		m, err := mail.ReadMessage(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		var rd io.Reader = m.Body
		if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			rd = quotedprintable.NewReader(m.Body)
		}
		b, _ := io.ReadAll(rd)
		return m.Header.Get("To"), string(b)
	case <-time.After(3 * time.Minute):
		t.Fatal("no email arrived")
	}
	return "", ""
}

var resetLinkRe = regexp.MustCompile(`https?://[^\s]+/reset-password/([A-Za-z0-9_]+)`)

// TestPasswordResetByEmail: with SMTP the login page offers "Forgot
// password?"; the request answers the same for a known and an unknown
// address and emails the known one a link; the link sets a new password
// once (the old one stops working, sessions end); it cannot be used twice.
func TestPasswordResetByEmail(t *testing.T) {
	e, c := ownerClient(t, 1)
	addr, msgs := loopSMTP(t)
	e.svc.SendEmail = func(ctx context.Context, to, subject, body string) error {
		return deliver.SendEmail(ctx, "smtp://"+addr+"?from=earshot@example.com", to, subject, body)
	}
	anon := e.client()
	_, body, _ := anon.get("/login")
	must(t, body, `href="/forgot-password"`)

	_, body, _ = anon.get("/forgot-password")
	st, known, _ := anon.post("/forgot-password", url.Values{"email": {"owner@example.com"}}, true)
	if st != http.StatusOK {
		t.Fatalf("forgot: %d %s", st, known)
	}
	_, unknown, _ := anon.post("/forgot-password", url.Values{"email": {"nobody@example.com"}}, true)
	if strings.ReplaceAll(known, "owner@example.com", "X") != strings.ReplaceAll(unknown, "nobody@example.com", "X") {
		t.Fatalf("the answer tells a known address from an unknown one:\n%s\n---\n%s", known, unknown)
	}
	must(t, known, "If an account uses")
	to, text := waitMail(t, msgs)
	if !strings.Contains(to, "owner@example.com") {
		t.Fatalf("mail to %q", to)
	}
	m := resetLinkRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no link in %q", text)
	}
	link := "/reset-password/" + m[1]
	select {
	case extra := <-msgs:
		t.Fatalf("an email for the unknown address: %s", extra)
	default:
	}

	st, body, _ = anon.get(link)
	if st != http.StatusOK || !strings.Contains(body, `name="new_password"`) {
		t.Fatalf("reset page: %d %s", st, body)
	}
	if st, body, _ = anon.post(link, url.Values{"new_password": {"brand-new-horse-7"}, "new_password_confirm": {"other-horse-7"}}, true); st != http.StatusBadRequest {
		t.Fatalf("mismatch: %d", st)
	}
	if st, body, _ = anon.post(link, url.Values{"new_password": {"brand-new-horse-7"}, "new_password_confirm": {"brand-new-horse-7"}}, true); st != http.StatusOK || !strings.Contains(body, "Password changed") {
		t.Fatalf("reset: %d %s", st, body)
	}
	// The owner's old session is gone.
	if st, _, h := c.get("/"); st != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Fatalf("old session still works: %d", st)
	}
	if st, _, _ = anon.post(link, url.Values{"new_password": {"third-horse-77"}, "new_password_confirm": {"third-horse-77"}}, true); st == http.StatusOK {
		t.Fatal("the link worked twice")
	}
	if st, _, _ = anon.get(link); st != http.StatusNotFound {
		t.Fatalf("used link page: %d", st)
	}
	if st, _, _ := anon.post("/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-42"}}, true); st == http.StatusSeeOther {
		t.Fatal("the old password still logs in")
	}
	if st, _, _ := anon.post("/login", url.Values{"email": {"owner@example.com"}, "password": {"brand-new-horse-7"}}, true); st != http.StatusSeeOther {
		t.Fatalf("new password: %d", st)
	}
}

// TestPasswordResetWithoutSMTP: without SMTP the login page has no
// "Forgot password?" link and the request is refused (the CLI reset stays).
func TestPasswordResetWithoutSMTP(t *testing.T) {
	e, _ := ownerClient(t, 0)
	anon := e.client()
	_, body, _ := anon.get("/login")
	if strings.Contains(body, "forgot-password") {
		t.Fatal("Forgot password? offered without SMTP")
	}
	if st, body, _ := anon.get("/forgot-password"); st != http.StatusNotFound || !strings.Contains(body, "earshot user set-password") {
		t.Fatalf("forgot page without SMTP: %d", st)
	}
}
