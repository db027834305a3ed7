package match

import "testing"

// The rule reads a post's links with its text: a link-only post is about
// the page it links (issue 27), and an exclusion in the link excludes.
func TestMatchReadsLinks(t *testing.T) {
	it := Item{Text: "https://t.co/x", Links: []string{"https://acme.io/pricing"}}
	if !Compile(Rule{Keywords: []string{"acme.io"}}).Match(it) {
		t.Error("link not matched")
	}
	if Compile(Rule{Keywords: []string{"acme.io"}, ExcludeKeywords: []string{"pricing"}}).Match(it) {
		t.Error("exclusion in the link ignored")
	}
	if !Compile(Rule{WatchAccounts: []string{"@AcmeHQ"}}).Match(Item{AuthorHandle: "acmehq"}) {
		t.Error("watched account not matched")
	}
	if Compile(Rule{Keywords: []string{"acme"}}).Match(Item{Text: "acmeville"}) {
		t.Error("matched inside a word")
	}
}
