package capability

import (
	"context"
	"time"
)

// mailTimeout bounds one email's SMTP exchange.
const mailTimeout = time.Minute

// sendLater sends an email after the request has been answered (an SMTP
// round trip in the request would tell, by its time, that an address has
// an account, and would hold the request up), tracked so that a shutdown
// waits for it: a reset link asked for just before a restart is still
// sent. A failure is logged with attrs; the caller has already answered.
func (s *Service) sendLater(ctx context.Context, to, subject, body string, attrs ...any) {
	s.mail.Add(1)
	go func() {
		defer s.mail.Done()
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mailTimeout)
		defer cancel()
		if err := s.SendEmail(sendCtx, to, subject, body); err != nil {
			s.Log.Warn("email not sent", append(attrs, "subject", subject, "err", err)...)
		}
	}()
}

// WaitMail waits for the emails still being sent, until ctx ends; it
// reports whether all were done. serve calls it when shutting down.
func (s *Service) WaitMail(ctx context.Context) bool {
	done := make(chan struct{})
	go func() {
		s.mail.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
