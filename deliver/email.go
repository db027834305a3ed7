package deliver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"os"
	"strings"
	"time"
)

// smtpTimeout bounds a whole SMTP conversation when ctx has no deadline.
const smtpTimeout = 30 * time.Second

// ErrInvalidSMTPURL is returned for an EARSHOT_SMTP_URL SendEmail cannot use.
var ErrInvalidSMTPURL = errors.New("invalid SMTP URL")

// smtpServer is EARSHOT_SMTP_URL, parsed.
type smtpServer struct {
	host, port  string
	implicitTLS bool // smtps://: TLS from the first byte; smtp:// upgrades with STARTTLS when offered
	user, pass  string
	from        *mail.Address
	tlsConfig   *tls.Config // nil: verify against the system roots; tests set their own
}

// parseSMTPURL reads smtp://user:pass@host:587?from=alerts@example.com or
// smtps://…:465. Credentials are optional; from defaults to the user name
// when that is an address.
func parseSMTPURL(raw string) (*smtpServer, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error would print the password back; say only what failed.
		return nil, fmt.Errorf("%w: cannot parse", ErrInvalidSMTPURL)
	}
	s := &smtpServer{host: u.Hostname(), port: u.Port()}
	switch u.Scheme {
	case "smtp":
		if s.port == "" {
			s.port = "587"
		}
	case "smtps":
		s.implicitTLS = true
		if s.port == "" {
			s.port = "465"
		}
	default:
		return nil, fmt.Errorf("%w: scheme must be smtp or smtps", ErrInvalidSMTPURL)
	}
	if s.host == "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidSMTPURL)
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	from := u.Query().Get("from")
	if from == "" && strings.Contains(s.user, "@") {
		from = s.user
	}
	if from == "" {
		return nil, fmt.Errorf("%w: no from= address", ErrInvalidSMTPURL)
	}
	if s.from, err = mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("%w: from: %w", ErrInvalidSMTPURL, err)
	}
	return s, nil
}

// SendEmail sends a plain-text alert email through the server in smtpURL
// (EARSHOT_SMTP_URL). to may list several addresses separated by commas.
// On smtp:// the connection is upgraded with STARTTLS when the server offers
// it; credentials, when given, are sent with AUTH PLAIN, which net/smtp
// refuses over an unencrypted connection except to localhost.
func SendEmail(ctx context.Context, smtpURL, to, subject, textBody string) error {
	srv, err := parseSMTPURL(smtpURL)
	if err != nil {
		return err
	}
	return srv.send(ctx, to, subject, textBody, time.Now())
}

func (s *smtpServer) send(ctx context.Context, to, subject, textBody string, now time.Time) error {
	rcpts, err := mail.ParseAddressList(to)
	if err != nil {
		return fmt.Errorf("send email: recipients %q: %w", to, err)
	}
	msg, err := buildMessage(s.from, rcpts, subject, textBody, now)
	if err != nil {
		return fmt.Errorf("send email: %w", err)
	}
	if err := s.deliver(ctx, rcpts, msg); err != nil {
		return fmt.Errorf("send email via %s: %w", net.JoinHostPort(s.host, s.port), err)
	}
	return nil
}

func (s *smtpServer) deliver(ctx context.Context, rcpts []*mail.Address, msg []byte) error {
	addr := net.JoinHostPort(s.host, s.port)
	tlsConfig := s.tlsConfig
	if tlsConfig == nil {
		tlsConfig = &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
	}
	dialer := &net.Dialer{Timeout: smtpTimeout}
	var conn net.Conn
	var err error
	if s.implicitTLS {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: tlsConfig}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return err
	}
	// net/smtp knows no context: a deadline bounds a silent server, and
	// closing the connection ends the conversation when ctx is cancelled.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(smtpTimeout)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := c.Hello(helloName()); err != nil {
		return err
	}
	if !s.implicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tlsConfig); err != nil {
				return fmt.Errorf("starttls: %w", err)
			}
		}
	}
	if s.user != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return errors.New("credentials given but the server offers no AUTH")
		}
		if err := c.Auth(smtp.PlainAuth("", s.user, s.pass, s.host)); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r.Address); err != nil {
			return fmt.Errorf("rcpt to %s: %w", r.Address, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return c.Quit()
}

// helloName is the name Earshot gives in EHLO; some servers refuse
// "localhost", so the machine's host name is used when there is one.
func helloName() string {
	if h, err := os.Hostname(); err == nil && h != "" && !strings.ContainsAny(h, " \r\n") {
		return h
	}
	return "localhost"
}

// buildMessage writes an RFC 5322 message: a single text/plain UTF-8 part,
// quoted-printable so any line length and any script travel safely.
func buildMessage(from *mail.Address, to []*mail.Address, subject, textBody string, now time.Time) ([]byte, error) {
	if len(to) == 0 {
		return nil, errors.New("no recipient")
	}
	tos := make([]string, len(to))
	for i, a := range to {
		tos[i] = a.String()
	}
	domain := "earshot.invalid"
	if at := strings.LastIndexByte(from.Address, '@'); at >= 0 {
		domain = from.Address[at+1:]
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)

	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id)+"@"+domain+">")
	header("From", from.String())
	header("To", strings.Join(tos, ", "))
	// oneLine keeps CR/LF out of the header; long encoded subjects are
	// folded between their encoded words.
	header("Subject", strings.ReplaceAll(mime.QEncoding.Encode("utf-8", oneLine(subject)), "?= =?", "?=\r\n =?"))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	// RFC 3834: tells well-behaved autoresponders not to answer alerts.
	header("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")

	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(textBody, "\r\n", "\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
