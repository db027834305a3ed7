package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Open registration must not let clients nobody wants pile up: a client
// no user approved is deleted a day after it registered; one a user
// approved stays (also once its code is used and its grant's key
// revoked), and so does a fresh one. On both backends.
func TestPurgeOAuthDeletesOldUnapprovedClients(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p := testProject(t, st, "oauthpurge")
	owner, err := st.UserByEmail(ctx, "oauthpurge@example.com")
	if err != nil {
		t.Fatal(err)
	}
	reg := func(name string) *OAuthClient {
		c, err := st.CreateOAuthClient(ctx, name, []string{"http://127.0.0.1/cb"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	backdate := func(c *OAuthClient, d time.Duration) {
		if _, err := st.w.ExecContext(ctx, `UPDATE oauth_clients SET created_at = ? WHERE id = ?`, FormatTime(time.Now().Add(-d)), c.ID); err != nil {
			t.Fatal(err)
		}
	}
	old, approved, fresh := reg("never approved"), reg("approved"), reg("fresh")
	if err := st.CreateOAuthCode(ctx, "esc_code", &OAuthCode{ClientID: approved.ID, UserID: owner.ID, ProjectID: p.ID,
		Scopes: []string{"mentions:read"}, RedirectURI: "http://127.0.0.1/cb", Challenge: "x"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The grant is over: the code was used and is gone, nothing else links
	// the client to anyone but the recorded approval.
	if _, err := st.TakeOAuthCode(ctx, "esc_code"); err != nil {
		t.Fatal(err)
	}
	backdate(old, 25*time.Hour)
	backdate(approved, 25*time.Hour)
	backdate(fresh, 23*time.Hour)

	n, err := st.PurgeOAuth(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("purged %d clients, want 1", n)
	}
	if _, err := st.OAuthClientByID(ctx, old.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a day-old client nobody approved: %v, want it deleted", err)
	}
	for _, c := range []*OAuthClient{approved, fresh} {
		if _, err := st.OAuthClientByID(ctx, c.ID); err != nil {
			t.Errorf("client %q: %v, want it kept", c.Name, err)
		}
	}

	// PurgeExpired, what the hourly purge worker runs, does the same.
	again := reg("another never approved")
	backdate(again, 48*time.Hour)
	if err := st.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.OAuthClientByID(ctx, again.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("PurgeExpired kept a two-day-old unapproved client: %v", err)
	}
	if _, err := st.OAuthClientByID(ctx, approved.ID); err != nil {
		t.Errorf("PurgeExpired deleted the approved client: %v", err)
	}
}
