package store

import (
	"database/sql"
	"testing"
)

// TestLeaseClaimable pins the lease policy's availability rule: a pending
// delivery may be sent when it is due and its lease is absent or expired.
func TestLeaseClaimable(t *testing.T) {
	const now = "2026-01-02T10:00:00.000000Z"
	null := sql.NullString{}
	at := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	for _, c := range []struct {
		name        string
		next, lease sql.NullString
		want        bool
	}{
		{"due, never leased", at("2026-01-02T09:00:00.000000Z"), null, true},
		{"due exactly now", at(now), null, true},
		{"not due yet", at("2026-01-02T10:00:01.000000Z"), null, false},
		{"lease expired", at(now), at("2026-01-02T09:59:59.000000Z"), true},
		{"lease ends now", at(now), at(now), true},
		{"leased by someone", at(now), at("2026-01-02T10:05:00.000000Z"), false},
		{"no next attempt", null, null, true},
	} {
		if got := claimable(c.next, c.lease, now); got != c.want {
			t.Errorf("%s: claimable = %v, want %v", c.name, got, c.want)
		}
	}
}
