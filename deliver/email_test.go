package deliver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http/httptest"
	"net/mail"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// smtpSession is what the test SMTP server saw in one conversation.
type smtpSession struct {
	ehlo     []string
	auth     string // "PLAIN:" + decoded initial response
	authTLS  bool   // whether AUTH came over TLS
	from     string
	rcpts    []string
	data     []byte
	dataTLS  bool // whether DATA came over TLS
	startTLS bool
}

// testSMTP speaks just enough SMTP for net/smtp: EHLO, STARTTLS, AUTH
// PLAIN, MAIL, RCPT, DATA and QUIT.
type testSMTP struct {
	addr       string
	offerTLS   *tls.Config // advertise STARTTLS with this config
	rejectRcpt string      // answer 550 to RCPT containing this
	sessions   chan smtpSession
}

func startSMTP(t *testing.T, s *testSMTP, implicitTLS *tls.Config) *testSMTP {
	t.Helper()
	var ln net.Listener
	var err error
	if implicitTLS != nil {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", implicitTLS)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.sessions = make(chan smtpSession, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.serve(conn)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return s
}

func (s *testSMTP) serve(conn net.Conn) {
	defer func() { conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Minute))
	var sess smtpSession
	_, isTLS := conn.(*tls.Conn)
	tp := textproto.NewConn(conn)
	reply := func(format string, args ...any) { _ = tp.PrintfLine(format, args...) }
	reply("220 test.local ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			sess.ehlo = append(sess.ehlo, arg)
			exts := []string{"test.local", "AUTH PLAIN"}
			if s.offerTLS != nil && !isTLS {
				exts = append(exts, "STARTTLS")
			}
			for i, e := range exts {
				sep := "-"
				if i == len(exts)-1 {
					sep = " "
				}
				reply("250%s%s", sep, e)
			}
		case "STARTTLS":
			reply("220 2.0.0 go ahead")
			tc := tls.Server(conn, s.offerTLS)
			if tc.Handshake() != nil {
				return
			}
			conn, isTLS, sess.startTLS = tc, true, true
			tp = textproto.NewConn(tc)
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			dec, _ := base64.StdEncoding.DecodeString(resp)
			sess.auth, sess.authTLS = mech+":"+string(dec), isTLS
			reply("235 2.7.0 authenticated")
		case "MAIL":
			sess.from = arg
			reply("250 2.1.0 ok")
		case "RCPT":
			if s.rejectRcpt != "" && strings.Contains(arg, s.rejectRcpt) {
				reply("550 5.1.1 no such user")
				continue
			}
			sess.rcpts = append(sess.rcpts, arg)
			reply("250 2.1.5 ok")
		case "DATA":
			reply("354 go on")
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			sess.data, sess.dataTLS = data, isTLS
			reply("250 2.0.0 queued")
		case "QUIT":
			reply("221 bye")
			s.sessions <- sess
			return
		default:
			reply("502 5.5.2 not implemented")
		}
	}
}

func (s *testSMTP) session(t *testing.T) smtpSession {
	t.Helper()
	select {
	case sess := <-s.sessions:
		return sess
	case <-time.After(3 * time.Minute):
		t.Fatal("no SMTP session")
		return smtpSession{}
	}
}

// decodeMessage parses the received message and returns its decoded body.
func decodeMessage(t *testing.T, data []byte) (*mail.Message, string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse message: %v\n%s", err, data)
	}
	if ct, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type")); err != nil || ct != "text/plain" || params["charset"] != "utf-8" {
		t.Fatalf("Content-Type %q", msg.Header.Get("Content-Type"))
	}
	if cte := msg.Header.Get("Content-Transfer-Encoding"); cte != "quoted-printable" {
		t.Fatalf("Content-Transfer-Encoding %q", cte)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil {
		t.Fatalf("decode body: %v", err)
	}
	return msg, string(body)
}

func TestSendEmail(t *testing.T) {
	srv := startSMTP(t, &testSMTP{}, nil)
	subject, body := EmailText("Marke überwachen", []AlertMention{
		{Source: "reddit", AuthorHandle: "u/jürgen", Text: "Der Checkout ist kaputt 😡 " + strings.Repeat("sehr lange Zeile ", 20), Urgency: 80, Sentiment: "negative", Category: "bug_report", URL: "https://reddit.com/r/x/1"},
		{Source: "hackernews", AuthorHandle: "pg", Text: "日本語のテキスト", Urgency: 10, Sentiment: "positive", Category: "testimonial"},
	})
	body += ".a line that starts with a dot\n.\nlast line\n"

	url := "smtp://alice:s3cret@" + srv.addr + "?from=" + "Earshot%20Alerts%20%3Calerts@example.com%3E"
	before := time.Now().Add(-time.Second)
	if err := SendEmail(context.Background(), url, "ops@example.com, Jürgen Ä <j@example.org>", subject, body); err != nil {
		t.Fatal(err)
	}
	sess := srv.session(t)

	if sess.auth != "PLAIN:\x00alice\x00s3cret" {
		t.Errorf("auth %q", sess.auth)
	}
	if sess.from != "FROM:<alerts@example.com>" {
		t.Errorf("MAIL %q", sess.from)
	}
	if strings.Join(sess.rcpts, ",") != "TO:<ops@example.com>,TO:<j@example.org>" {
		t.Errorf("RCPT %q", sess.rcpts)
	}

	msg, gotBody := decodeMessage(t, sess.data)
	var dec mime.WordDecoder
	if got, err := dec.DecodeHeader(msg.Header.Get("Subject")); err != nil || got != subject {
		t.Errorf("Subject %q (%v), want %q", got, err, subject)
	}
	if raw := msg.Header.Get("Subject"); !strings.Contains(raw, "=?utf-8?q?") {
		t.Errorf("non-ASCII subject not RFC 2047 encoded: %q", raw)
	}
	if from, err := msg.Header.AddressList("From"); err != nil || len(from) != 1 || from[0].Address != "alerts@example.com" || from[0].Name != "Earshot Alerts" {
		t.Errorf("From %v (%v)", from, err)
	}
	if to, err := msg.Header.AddressList("To"); err != nil || len(to) != 2 || to[1].Name != "Jürgen Ä" || to[1].Address != "j@example.org" {
		t.Errorf("To %v (%v)", to, err)
	}
	if d, err := msg.Header.Date(); err != nil || d.Before(before) || d.After(time.Now().Add(time.Second)) {
		t.Errorf("Date %v (%v)", d, err)
	}
	if id := msg.Header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@example.com>") {
		t.Errorf("Message-ID %q", id)
	}
	if gotBody != body {
		t.Errorf("body differs\n got: %q\nwant: %q", gotBody, body)
	}
	// Every line of the wire message fits SMTP's limit.
	for _, line := range strings.Split(string(sess.data), "\n") {
		if len(line) > 78 {
			t.Errorf("line of %d bytes: %q", len(line), line)
		}
	}
}

// testTLS borrows httptest's certificate for 127.0.0.1.
func testTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	hs := httptest.NewTLSServer(nil)
	t.Cleanup(hs.Close)
	pool := x509.NewCertPool()
	pool.AddCert(hs.Certificate())
	return &tls.Config{Certificates: hs.TLS.Certificates},
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

func TestSendEmailTLS(t *testing.T) {
	serverTLS, clientTLS := testTLS(t)

	t.Run("STARTTLS when offered", func(t *testing.T) {
		srv := startSMTP(t, &testSMTP{offerTLS: serverTLS}, nil)
		s, err := parseSMTPURL("smtp://bob:pw@" + srv.addr + "?from=alerts@example.com")
		if err != nil {
			t.Fatal(err)
		}
		s.tlsConfig = clientTLS
		if err := s.send(context.Background(), "ops@example.com", "hi", "body\n", time.Now()); err != nil {
			t.Fatal(err)
		}
		sess := srv.session(t)
		if !sess.startTLS || !sess.authTLS || !sess.dataTLS || len(sess.ehlo) != 2 {
			t.Fatalf("session %+v: want STARTTLS, then EHLO again, AUTH and DATA over TLS", sess)
		}
	})

	t.Run("smtps", func(t *testing.T) {
		srv := startSMTP(t, &testSMTP{}, serverTLS)
		s, err := parseSMTPURL("smtps://bob@example.com:pw@" + srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		s.tlsConfig = clientTLS
		if err := s.send(context.Background(), "ops@example.com", "hi", "body\n", time.Now()); err != nil {
			t.Fatal(err)
		}
		sess := srv.session(t)
		if sess.startTLS || !sess.dataTLS || sess.from != "FROM:<bob@example.com>" {
			t.Fatalf("session %+v: want implicit TLS and from = user", sess)
		}
	})

	t.Run("untrusted certificate fails", func(t *testing.T) {
		srv := startSMTP(t, &testSMTP{offerTLS: serverTLS}, nil)
		err := SendEmail(context.Background(), "smtp://"+srv.addr+"?from=alerts@example.com", "ops@example.com", "hi", "body")
		if err == nil || !strings.Contains(err.Error(), "starttls") {
			t.Fatalf("err = %v, want a STARTTLS certificate error", err)
		}
	})
}

func TestSendEmailErrors(t *testing.T) {
	srv := startSMTP(t, &testSMTP{rejectRcpt: "nobody"}, nil)
	base := "smtp://" + srv.addr + "?from=alerts@example.com"
	if err := SendEmail(context.Background(), base, "nobody@example.com", "s", "b"); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("rejected recipient: err = %v", err)
	}
	if err := SendEmail(context.Background(), base, "not an address", "s", "b"); err == nil {
		t.Error("bad recipient accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SendEmail(ctx, base, "ops@example.com", "s", "b"); err == nil {
		t.Error("cancelled context: no error")
	}
	// A header injection attempt in the subject stays in the subject.
	if err := SendEmail(context.Background(), base, "ops@example.com", "hi\r\nBcc: victim@example.com", "b"); err != nil {
		t.Fatal(err)
	}
	msg, _ := decodeMessage(t, srv.session(t).data)
	if msg.Header.Get("Bcc") != "" || msg.Header.Get("Subject") != "hi Bcc: victim@example.com" {
		t.Errorf("headers %v", msg.Header)
	}
}

func TestParseSMTPURL(t *testing.T) {
	tests := []struct {
		url                string
		host, port, from   string
		implicitTLS, valid bool
	}{
		{"smtp://user:pass@mail.example.com:587?from=alerts@example.com", "mail.example.com", "587", "alerts@example.com", false, true},
		{"smtp://mail.example.com?from=alerts@example.com", "mail.example.com", "587", "alerts@example.com", false, true},
		{"smtps://mail.example.com?from=alerts@example.com", "mail.example.com", "465", "alerts@example.com", true, true},
		{"smtps://me%40example.com:pw@mail.example.com:2465", "mail.example.com", "2465", "me@example.com", true, true},
		{"smtp://mail.example.com", "", "", "", false, false},            // no from
		{"smtp://mail.example.com?from=nope", "", "", "", false, false},  // bad from
		{"http://mail.example.com?from=a@b.c", "", "", "", false, false}, // scheme
		{"smtp://?from=a@b.c", "", "", "", false, false},                 // no host
		{"smtp://u:p@h:bad?from=a@b.c", "", "", "", false, false},        // unparseable
	}
	for _, tt := range tests {
		s, err := parseSMTPURL(tt.url)
		if !tt.valid {
			if !errors.Is(err, ErrInvalidSMTPURL) {
				t.Errorf("%s: err = %v, want ErrInvalidSMTPURL", tt.url, err)
			}
			if err != nil && strings.Contains(err.Error(), "p@") {
				t.Errorf("%s: error leaks credentials: %v", tt.url, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.url, err)
			continue
		}
		if s.host != tt.host || s.port != tt.port || s.from.Address != tt.from || s.implicitTLS != tt.implicitTLS {
			t.Errorf("%s: got %+v", tt.url, s)
		}
	}
}
