package capability_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// A reset email asked for just before a shutdown is still sent: WaitMail
// waits for the emails sent after answering, and says when it gave up.
func TestWaitMailWaitsForEmailsInFlight(t *testing.T) {
	e := newEnv(t)
	release, sent := make(chan struct{}), make(chan string, 1)
	e.svc.SendEmail = func(_ context.Context, to, subject, body string) error {
		<-release
		sent <- to
		return nil
	}
	c, ok := e.svc.SessionCapability("request_password_reset")
	if !ok {
		t.Fatal("no request_password_reset")
	}
	in, err := c.Decode(map[string]json.RawMessage{"email": json.RawMessage(`"a@example.com"`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := e.svc.Execute(context.Background(), c, nil, in, ""); out.Err != nil {
		t.Fatal(out.Err)
	}

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if e.svc.WaitMail(short) {
		t.Fatal("WaitMail returned true while an email was still being sent")
	}
	close(release)
	long, cancel2 := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel2()
	if !e.svc.WaitMail(long) {
		t.Fatal("WaitMail gave up on an email that was released")
	}
	select {
	case to := <-sent:
		if to != "a@example.com" {
			t.Errorf("sent to %q", to)
		}
	default:
		t.Fatal("WaitMail returned before the email was sent")
	}
}
