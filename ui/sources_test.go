package ui

import (
	"strings"
	"testing"

	"earshot/vocab"
)

// Every platform a monitor may watch (Bluesky and Mastodon included) has a
// display name, a badge and a badge colour in the dashboard, so the source
// filter, rows and bylines never show a raw value.
func TestEverySourceHasNameBadgeAndColour(t *testing.T) {
	css, err := staticFS.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range vocab.Sources {
		if sourceName(s) == s {
			t.Errorf("%s has no display name", s)
		}
		if strings.Contains(string(sourceIcon(s)), "•") {
			t.Errorf("%s has no badge", s)
		}
		if !strings.Contains(string(css), ".src-"+s+" ") {
			t.Errorf("%s has no badge colour in app.css", s)
		}
	}
	for _, c := range []struct{ handle, source, want string }{
		{"jules.bsky.social", "bluesky", "@jules.bsky.social"},
		{"", "bluesky", "a Bluesky user"},
		{"karin@fosstodon.social", "mastodon", "@karin@fosstodon.social"},
	} {
		if got := byline(c.handle, c.source); got != c.want {
			t.Errorf("byline(%q, %q) = %q, want %q", c.handle, c.source, got, c.want)
		}
	}
}
