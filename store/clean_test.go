package store_test

import (
	"context"
	"strings"
	"testing"

	"earshot/store"
)

// Issue 25 M7 and the url finding, on both backends: a batch in which one
// post carries NUL characters (and one invalid UTF-8) is stored whole, the
// NULs dropped; a javascript: or data: url is not stored (the mention has
// no url), nor is such a link.
func TestIngestCleansNULAndNonWebURLs(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "nul@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "Nul", nil)
	batch := newMentions("nul", 3)
	batch[1].ExternalID = "nul-\x00-1"
	batch[1].Text = "Acme\x00 rocks \xff"
	batch[1].AuthorHandle = "ev\x00il"
	batch[1].AISummary = "sum\x00mary"
	batch[1].URL = "javascript:alert(document.cookie)"
	batch[1].Links = []string{"data:text/html,<script>alert(1)</script>", "https://example.com/a"}
	batch[1].Engagement = map[string]int64{"li\x00kes": 3}
	batch[2].URL = "https://example.com/post/2"
	res, err := st.IngestMentions(ctx, p.ID, 0, batch)
	if err != nil {
		t.Fatalf("a batch with one post carrying NULs: %v", err)
	}
	if res.New != 3 || len(res.Created) != 3 {
		t.Fatalf("stored %d of 3 (%d created)", res.New, len(res.Created))
	}
	m, err := st.Mention(ctx, p.ID, res.Created[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.ExternalID != "nul--1" || m.Text != "Acme rocks \uFFFD" || m.AuthorHandle != "evil" || strings.ContainsRune(m.AISummary, 0) {
		t.Errorf("stored %q %q %q %q", m.ExternalID, m.Text, m.AuthorHandle, m.AISummary)
	}
	if m.URL != "" {
		t.Errorf("javascript: url stored as %q", m.URL)
	}
	if _, ok := m.Engagement["likes"]; !ok {
		t.Errorf("engagement %v", m.Engagement)
	}
	m2, _ := st.Mention(ctx, p.ID, res.Created[2].ID)
	if m2 == nil || m2.URL != "https://example.com/post/2" {
		t.Errorf("an https url: %+v", m2)
	}
}

func TestWebURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/x":       "https://example.com/x",
		"HTTP://example.com":          "HTTP://example.com",
		"javascript:alert(1)":         "",
		" JavaScript:alert(1)":        "",
		"data:text/html,hi":           "",
		"vbscript:x":                  "",
		"//example.com/x":             "",
		"/relative":                   "",
		"https:///nohost":             "",
		"ftp://example.com/file":      "",
		"https://exa\x00mple.com/nul": "https://example.com/nul",
	} {
		if got := store.WebURL(in); got != want {
			t.Errorf("WebURL(%q) = %q, want %q", in, got, want)
		}
	}
}
