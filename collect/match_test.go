package collect

import (
	"strings"
	"testing"
)

func TestRuleMatch(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		post Post
		want bool
	}{
		{"plain any", Rule{Keywords: []string{"acme"}}, Post{Text: "I love Acme!"}, true},
		{"default mode is any", Rule{Keywords: []string{"globex", "acme"}}, Post{Text: "acme"}, true},
		{"glued letter after", Rule{Keywords: []string{"acme"}}, Post{Text: "acmes are great"}, false},
		{"glued letter before", Rule{Keywords: []string{"acme"}}, Post{Text: "myacme rocks"}, false},
		{"glued digit", Rule{Keywords: []string{"acme"}}, Post{Text: "acme2 is out"}, false},
		{"digit before", Rule{Keywords: []string{"acme"}}, Post{Text: "2acme"}, false},
		{"second occurrence is clean", Rule{Keywords: []string{"acme"}}, Post{Text: "acmex then acme."}, true},
		{"underscore is not a letter", Rule{Keywords: []string{"acme"}}, Post{Text: "use_acme_now"}, true},
		{"hyphen boundary", Rule{Keywords: []string{"acme"}}, Post{Text: "acme-cli"}, true},
		{"possessive", Rule{Keywords: []string{"acme"}}, Post{Text: "Acme's roadmap"}, true},
		{"start and end of text", Rule{Keywords: []string{"acme"}}, Post{Text: "acme"}, true},
		{"dotted keyword", Rule{Keywords: []string{"acme.io"}}, Post{Text: "see ACME.IO/pricing"}, true},
		{"dotted keyword glued", Rule{Keywords: []string{"acme.io"}}, Post{Text: "acme.iox"}, false},
		{"dot is literal", Rule{Keywords: []string{"acme.io"}}, Post{Text: "acmexio"}, false},
		{"at keyword", Rule{Keywords: []string{"@acme"}}, Post{Text: "thanks @Acme!"}, true},
		{"at keyword glued before", Rule{Keywords: []string{"@acme"}}, Post{Text: "mail me@acme"}, false},
		{"at keyword not bare word", Rule{Keywords: []string{"@acme"}}, Post{Text: "acme rocks"}, false},
		{"c++", Rule{Keywords: []string{"c++"}}, Post{Text: "Written in C++, fast"}, true},
		{"c++ glued", Rule{Keywords: []string{"c++"}}, Post{Text: "abc++ op"}, false},
		{"c++ vs c", Rule{Keywords: []string{"c++"}}, Post{Text: "written in c, fast"}, false},
		{"unicode fold", Rule{Keywords: []string{"Café"}}, Post{Text: "LE CAFÉ EST BON"}, true},
		{"unicode fold reverse", Rule{Keywords: []string{"CAFÉ"}}, Post{Text: "un café"}, true},
		{"unicode glued letter", Rule{Keywords: []string{"café"}}, Post{Text: "cafés"}, false},
		{"unicode letter glued before", Rule{Keywords: []string{"acme"}}, Post{Text: "éacme"}, false},
		{"combining mark glues", Rule{Keywords: []string{"cafe"}}, Post{Text: "cafe\u0301"}, false},
		{"kelvin sign folds", Rule{Keywords: []string{"kelvin"}}, Post{Text: "\u212Aelvin"}, true},
		{"greek sigma", Rule{Keywords: []string{"ΣΟΦΙΑ"}}, Post{Text: "η σοφια"}, true},
		{"non-latin glued", Rule{Keywords: []string{"acme"}}, Post{Text: "acme日本"}, false},
		{"empty keywords", Rule{}, Post{Text: "anything"}, false},
		{"blank keywords ignored", Rule{Keywords: []string{"", "  "}}, Post{Text: "anything"}, false},
		{"all empty never matches", Rule{QueryMode: "all"}, Post{Text: "anything"}, false},
		{"all", Rule{Keywords: []string{"acme", "pricing"}, QueryMode: "all"}, Post{Text: "Pricing of acme"}, true},
		{"all missing one", Rule{Keywords: []string{"acme", "pricing"}, QueryMode: "all"}, Post{Text: "acme rocks"}, false},
		{"all glued one", Rule{Keywords: []string{"acme", "price"}, QueryMode: "all"}, Post{Text: "acme prices"}, false},
		{"phrase", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "the Acme board view"}, true},
		{"phrase across newline", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "the acme\n\t board"}, true},
		{"phrase wrong order", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "board acme"}, false},
		{"phrase needs white space", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "acme-board"}, false},
		{"phrase not adjacent", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "acme kanban board"}, false},
		{"phrase glued end", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "acme boards"}, false},
		{"phrase retry after partial", Rule{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, Post{Text: "acme acme board"}, true},
		{"phrase multiword keyword", Rule{Keywords: []string{"acme corp", "board"}, QueryMode: "phrase"}, Post{Text: "ACME  Corp board"}, true},
		{"phrase empty", Rule{QueryMode: "phrase"}, Post{Text: "x"}, false},
		{"exclude drops", Rule{Keywords: []string{"acme"}, ExcludeKeywords: []string{"looney"}}, Post{Text: "Acme, Looney Tunes"}, false},
		{"exclude glued does not drop", Rule{Keywords: []string{"acme"}, ExcludeKeywords: []string{"loon"}}, Post{Text: "acme looney"}, true},
		{"exclude phrase-like", Rule{Keywords: []string{"acme"}, ExcludeKeywords: []string{"road runner"}}, Post{Text: "acme and the Road\nRunner"}, false},
		{"watch account", Rule{Keywords: []string{"acme"}, WatchAccounts: []string{"@AcmeHQ"}}, Post{AuthorHandle: "acmehq", Text: "new release"}, true},
		{"watch account no keywords", Rule{WatchAccounts: []string{"acmehq"}}, Post{AuthorHandle: "AcmeHQ", Text: "hello"}, true},
		{"watch account with @ on post", Rule{WatchAccounts: []string{"acmehq"}}, Post{AuthorHandle: "@acmehq", Text: "hello"}, true},
		{"watch account excluded", Rule{WatchAccounts: []string{"acmehq"}, ExcludeKeywords: []string{"hiring"}}, Post{AuthorHandle: "acmehq", Text: "We're hiring"}, false},
		{"other account", Rule{WatchAccounts: []string{"acmehq"}}, Post{AuthorHandle: "someone", Text: "hello"}, false},
		{"deleted author never watched", Rule{WatchAccounts: []string{""}}, Post{AuthorHandle: "", Text: "hello"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compile(tt.rule).Match(tt.post); got != tt.want {
				t.Errorf("Match(%q) = %v, want %v", tt.post.Text, got, tt.want)
			}
		})
	}
}

func TestRuleFromQuery(t *testing.T) {
	q := Query{Keywords: []string{"acme"}, ExcludeKeywords: []string{"x"}, QueryMode: "all", WatchAccounts: []string{"a"}}
	r := RuleFromQuery(q)
	if r.QueryMode != "all" || r.Keywords[0] != "acme" || r.ExcludeKeywords[0] != "x" || r.WatchAccounts[0] != "a" {
		t.Fatalf("RuleFromQuery = %+v", r)
	}
}

var benchText = strings.Repeat("Honestly the new kanban view in our tracker is great, but sync is slow sometimes. ", 6) +
	"Has anyone compared Acme to Globex for a 40-person team? ¿Qué tal?"

func BenchmarkMatcherAny(b *testing.B) {
	m := Compile(Rule{Keywords: []string{"acme", "acme.io", "@acmehq", "acme board"}, ExcludeKeywords: []string{"looney tunes", "wile"}})
	p := Post{Text: benchText, AuthorHandle: "someone"}
	b.ReportAllocs()
	for b.Loop() {
		if !m.Match(p) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkMatcherPhraseASCII(b *testing.B) {
	m := Compile(Rule{Keywords: []string{"acme", "to", "globex"}, QueryMode: "phrase"})
	p := Post{Text: strings.ReplaceAll(benchText, "¿Qué tal?", "")}
	b.ReportAllocs()
	for b.Loop() {
		if !m.Match(p) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkRuleMatchUncompiled(b *testing.B) {
	r := Rule{Keywords: []string{"acme", "globex"}, ExcludeKeywords: []string{"wile"}}
	p := Post{Text: benchText}
	b.ReportAllocs()
	for b.Loop() {
		Compile(r).Match(p)
	}
}
