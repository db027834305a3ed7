package store

import (
	"strings"
	"testing"
)

// A database URL is shown in logs, /healthz and migrate's output without
// its password, wherever the URL holds it: libpq and pgx accept it in the
// userinfo and as a password query parameter.
func TestRedactURLHidesEveryPassword(t *testing.T) {
	for _, in := range []string{
		"postgres://earshot:topsecret1@db:5432/earshot?sslmode=require",
		"postgres://earshot@db:5432/earshot?password=topsecret1&sslmode=disable",
		"postgresql://earshot:topsecret1@db/earshot?password=topsecret1",
		"postgres://earshot:topsecret1@[::1/earshot", // does not parse
	} {
		got := RedactURL(in)
		if strings.Contains(got, "topsecret1") {
			t.Errorf("RedactURL(%q) = %q: the password is shown", in, got)
		}
	}
	if got := RedactURL("postgres://earshot@db:5432/earshot?sslmode=disable"); got != "postgres://earshot@db:5432/earshot?sslmode=disable" {
		t.Errorf("a URL without a password changed: %q", got)
	}
}
