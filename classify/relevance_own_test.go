package classify

import (
	"strings"
	"testing"
)

func TestOwnPost(t *testing.T) {
	o := NewOwner([]string{"@acme", "u/acme_support", "urn:li:organization:42", "Acme HQ"},
		[]string{"https://www.acme.example", "acme.dev", "not a domain"})
	tests := []struct {
		name, source, author, url string
		want                      bool
		reason                    string // a part of the reason
	}{
		{"watched handle", "x", "acme", "https://x.com/acme/status/1", true, "@acme"},
		{"handle any case, with @", "threads", "@ACME", "", true, "@ACME"},
		{"reddit u/ form", "reddit", "acme_support", "", true, "@acme_support"},
		{"linkedin organization", "linkedin", "urn:li:organization:42", "", true, "by LinkedIn organization 42, the project's own account"},
		{"channel name", "youtube", "acme hq", "", true, "acme hq"},
		{"someone else", "x", "acme_fan", "https://x.com/acme_fan/status/2", false, ""},
		{"no author", "hn", "", "https://news.ycombinator.com/item?id=1", false, ""},
		{"blog on the website", "news", "Priya N.", "https://acme.example/blog/1", true, "acme.example"},
		{"subdomain of the website", "news", "", "https://blog.acme.example/p/1", true, "acme.example"},
		{"second own domain", "news", "Jo", "https://www.acme.dev/news", true, "acme.dev"},
		{"publisher named by host", "news", "acme.example", "", true, "acme.example"},
		{"look-alike domain", "news", "x", "https://notacme.example/blog", false, ""},
		{"third-party news", "news", "TechCrunch", "https://techcrunch.example/acme", false, ""},
		{"platform link is not the brand publishing", "reviews", "Ann", "https://acme.example/reviews#1", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := o.OwnPost(tc.source, tc.author, tc.url)
			if got != tc.want {
				t.Fatalf("OwnPost(%q, %q, %q) = %v (%q), want %v", tc.source, tc.author, tc.url, got, why, tc.want)
			}
			if got && (!strings.HasPrefix(why, "own post: ") || !strings.Contains(why, tc.reason)) {
				t.Errorf("reason %q, want one naming %q", why, tc.reason)
			}
		})
	}
	if !(Owner{}).Empty() || o.Empty() {
		t.Error("Empty")
	}
	if got, _ := (Owner{}).OwnPost("x", "acme", ""); got {
		t.Error("the zero Owner owns a post")
	}
}
