package search

import (
	"errors"
	"strings"
	"testing"
)

// Corpus is the table the grammar tests (here and in store, on both
// backends) search: id → text, author, source, category.
var Corpus = []struct {
	ID  string
	Doc Doc
}{
	{"a", Doc{Text: "Acme outage this morning, the API is down", Author: "ops_bob", Source: "x", Category: "bug_report"}},
	{"b", Doc{Text: "Two outages in a week. Acme please fix", Author: "Carol", Source: "reddit", Category: "complaint"}},
	{"c", Doc{Text: "The service outage postmortem is out", Author: "acme", Source: "news", Category: "other"}},
	{"d", Doc{Text: "Asked Acme for a refund; refunded in a day", Author: "dave", Source: "reddit", Category: "testimonial"}},
	{"e", Doc{Text: "Looney Tunes ACME anvils #classic", Author: "eve", Source: "youtube", Category: "other"}},
	{"f", Doc{Text: "routage et STRASSE — «acme» “outage”…", Author: "frank", Source: "x", Category: "other"}},
	{"g", Doc{Text: "acme.com returns 500s; service-outage again 🔥outage", Author: "gina", Source: "hn", Category: "bug_report"}},
}

func TestGrammarSelects(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"outage", "abcfg"},        // word prefix: outages too; not routage
		{"outages", "abcfg"},       // stemmed to outag: outage too
		{"OUTAGE", "abcfg"},        // case
		{"refund", "d"},            // refund and refunded
		{"refunds", "d"},           // stemmed
		{`"service outage"`, "cg"}, // phrase, separators between words
		{`"outage"`, "acfg"},       // exact word: not outages
		{`"outages"`, "b"},
		{"acme -outage", "de"}, // leaves out a, b (outages), f (“outage”), g
		{"postmortem OR refund", "cd"},
		{"acme refund OR anvils", "de"}, // acme (refund OR anvils)
		{"acme AND refund", "d"},
		{"(outage OR refund) -acme", "c"},
		{"author:acme", "c"},
		{"author:@CAROL outage", "b"},
		{"source:reddit", "bd"},
		{"-source:reddit acme", "aefg"},
		{"category:bug_report OR category:testimonial", "adg"},
		{"acme.com", "g"}, // a phrase of acme, com
		{"#classic", "e"},
		{"straße", "f"}, // folding both ways
		{"strass", "f"}, // prefix
		{"-(outage OR acme)", ""},
		{"po", "c"},
		{"500", "g"},
	} {
		q, err := Parse(c.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.q, err)
			continue
		}
		var got string
		for _, r := range Corpus {
			if q.Match(r.Doc) {
				got += r.ID
			}
		}
		if got != c.want {
			t.Errorf("%q selects %q, want %q", c.q, got, c.want)
		}
	}
}

func TestGrammarRefuses(t *testing.T) {
	for _, c := range []struct{ q, problem string }{
		{`"acme outage`, "unbalanced quote"},
		{`acme OR`, "OR without a term after"},
		{`OR acme`, "OR without a term before"},
		{`acme OR OR refund`, "OR without a term after"},
		{`AND acme`, "AND without a term before"},
		{`acme AND`, "ends with AND"},
		{`""`, "empty quotes"},
		{`!!! ...`, "no words"},
		{``, "no words"},
		{`()`, "no words"},
		{`(acme`, "unbalanced ("},
		{`acme)`, "unbalanced )"},
		{`lang:en`, "unknown field lang:"},
		{`source:myspace`, "not a platform"},
		{`author:`, "has no value"},
		{`category:spam`, "not a category"},
	} {
		_, err := Parse(c.q)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want a search.Error", c.q, err)
			continue
		}
		if !strings.Contains(e.Problem, c.problem) || e.Hint == "" {
			t.Errorf("Parse(%q): %q (hint %q), want %q and a hint", c.q, e.Problem, e.Hint, c.problem)
		}
	}
}

func TestLenientReadsAnOldSearchAsItsPhrase(t *testing.T) {
	q := Lenient(`"acme outage`)
	if q == nil || !q.Match(Doc{Text: "ACME  outage!"}) || q.Match(Doc{Text: "acme had an outage"}) {
		t.Fatal(`Lenient("\"acme outage") should be the phrase acme outage`)
	}
	if Lenient("!!!") != nil {
		t.Fatal("a search without words is no query")
	}
}

func TestSpansMarkWholeWordsInTheOriginalText(t *testing.T) {
	q, _ := Parse(`outages -acme "service outage" STRASSE`)
	text := "Service outages at Straße; acme outage"
	var got []string
	for _, s := range q.Spans(text) {
		got = append(got, text[s[0]:s[1]])
	}
	want := "outages|Straße|outage" // not acme (negated); the phrase needs whole words
	if strings.Join(got, "|") != want {
		t.Fatalf("spans %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestNarrowLiftsTopLevelFields(t *testing.T) {
	q, _ := Parse("author:@Bob source:reddit outage -category:other")
	rest, a, s, c := q.Narrow("", "", "")
	if a != "bob" || s != "reddit" || c != "" || rest == nil {
		t.Fatalf("Narrow = %v %q %q %q", rest, a, s, c)
	}
	if sql, _ := rest.SQL(false); strings.Contains(sql, "author") || strings.Contains(sql, "source") {
		t.Fatalf("lifted fields stayed in the query: %s", sql)
	}
	q, _ = Parse("source:reddit")
	if rest, _, s, _ := q.Narrow("", "x", ""); rest == nil || s != "x" {
		t.Fatal("a field the caller set stays in the query")
	}
}

func TestFTSNarrowsOnlyWhereItCan(t *testing.T) {
	for _, c := range []struct {
		q, want string
		ok      bool
	}{
		{"outage", `("out" AND "uta" AND "tag" AND "age")`, true},
		{"acme -outage", `(("acm" AND "cme"))`, true},
		{"acme OR po", "", false},
		{"source:x", "", false},
		{`"ab cde"`, `("cde")`, true},
	} {
		q, err := Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := q.FTS()
		if got != c.want || ok != c.ok {
			t.Errorf("FTS(%q) = %q %v, want %q %v", c.q, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParse: any search either parses or is an *Error, and a parsed one
// compiles and marks without panicking; Match agrees with Spans about
// whether a positive single word is found.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`"a b`, "-(x OR y) z", "a OR", "((a))", `author:@x -"p q" OR source:x`, "ß🔥é", "- -- ---a", ")(", `""""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q): %T", s, err)
			}
			return
		}
		q.SQL(true)
		q.SQL(false)
		q.FTS()
		q.Spans(s)
		q.Match(Doc{Text: s})
	})
}
