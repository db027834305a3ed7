package ui

import "testing"

func TestByline(t *testing.T) {
	for _, tc := range []struct{ handle, source, want string }{
		{"dana", "threads", "@dana"},
		{"", "reddit", "a Reddit user"},
		{"", "x", "an X user"},
		{"  ", "hn", "a Hacker News user"},
		{"", "news", "a news site"},
		{"", "reviews", "a reviewer"},
		{"urn:li:organization:90210001", "linkedin", "a LinkedIn page"},
		{"urn:li:company:42", "linkedin", "a LinkedIn page"},
		{"urn:li:person:AbC123", "linkedin", "a LinkedIn member"},
		{"urn:li:unknown:7", "linkedin", "a LinkedIn user"},
		{"acme_hq", "linkedin", "@acme_hq"},
	} {
		if got := byline(tc.handle, tc.source); got != tc.want {
			t.Errorf("byline(%q, %q) = %q, want %q", tc.handle, tc.source, got, tc.want)
		}
	}
}
