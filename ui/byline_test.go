package ui

import "testing"

func TestByline(t *testing.T) {
	for _, tc := range []struct{ handle, source, want string }{
		{"dana", "threads", "@dana"},
		{"", "reddit", "a Reddit user"},
		{"  ", "hn", "a Hacker News user"},
		{"", "news", "a news site"},
		{"", "reviews", "a reviewer"},
	} {
		if got := byline(tc.handle, tc.source); got != tc.want {
			t.Errorf("byline(%q, %q) = %q, want %q", tc.handle, tc.source, got, tc.want)
		}
	}
}
