// Package search is the one mention search grammar: the search of
// list_mentions, export, counts, saved views, alerts, MCP and the dashboard
// is parsed here once (Parse), then tested in memory (Match, alerts),
// compiled to SQL for SQLite and PostgreSQL (SQL), to a candidate query for
// SQLite's trigram index (FTS), and marked in a post's text (Spans).
//
// The grammar (README "Search"):
//
//	outage             words starting with "outage" (outages, outage's)
//	outages            a trailing -s, -es, -ies, -ed or -ing is dropped
//	                   first, so outages finds outage and outage outages
//	"service outage"   a phrase: these whole words in this order, exact
//	acme outage        both (implicit AND; AND may be written)
//	outage OR refund   either; OR binds tighter than AND, as in web
//	                   search: acme outage OR refund is acme (outage OR refund)
//	-refund            not; also -"a phrase", -author:x, -(a OR b)
//	( … )              grouping
//	author:acme        author handle, letter case and a leading @ ignored
//	source:reddit      platform (vocab.Sources)
//	category:bug_report AI category (vocab.Categories)
//
// Words are letters and digits; spaces, punctuation, symbols and emoji
// separate them (isSep), so #outage finds outage and acme.com is the phrase
// "acme com". Letter case is ignored by Unicode case folding (straße finds
// STRASSE). Lower-case or and and are ordinary words.
package search

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"

	"earshot/vocab"
)

// Fold is search's case folding (Unicode full case folding: ß is ss).
//
// ASCII text, most posts, folds to its lower case: that path skips the
// Unicode caser (8.6 µs for a 150-character post, 0.3 µs here), which
// matters where SQLite folds every row of a window (a search's overview
// over 50,000 mentions).
func Fold(s string) string {
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return cases.Fold().String(s)
		}
		if 'A' <= c && c <= 'Z' {
			lower = false
		}
	}
	if lower {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

type kind uint8

const (
	kWord   kind = iota // a word prefix (stemmed)
	kPhrase             // whole words in order (one word: that exact word)
	kField              // field:value
	kAnd
	kOr
	kNot
)

type node struct {
	kind  kind
	words []string // folded: kWord one stem, kPhrase the words
	field string   // kField: author, source or category
	value string   // kField: the value (author folded to ASCII lower case, no @)
	kids  []*node
}

// Query is a parsed search.
type Query struct {
	root *node
}

// Fields are the field filters a search may use.
var fields = []string{"author", "source", "category"}

// Error is a search that does not parse: what is wrong and how to fix it.
type Error struct {
	Problem string
	Hint    string
}

func (e *Error) Error() string { return e.Problem + "; " + e.Hint }

// Syntax is the grammar in one line, for hints and docs.
const Syntax = `words match words starting with them (outage finds outages and outages finds outage), "quoted phrase", -word to exclude, a OR b, (grouping), author:handle, source:` + "reddit" + `, category:bug_report`

func errf(hint, format string, args ...any) *Error {
	return &Error{Problem: fmt.Sprintf(format, args...), Hint: hint}
}

// Parse reads a search. The error is an *Error.
func Parse(s string) (*Query, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	root, err := p.and(false)
	if err != nil {
		return nil, err
	}
	if root == nil || !hasTerm(root) {
		return nil, errf(`search for at least one word, e.g. outage or "service outage"`, "the search has no words to look for")
	}
	return &Query{root: root}, nil
}

// Lenient reads a search that may not parse (one saved before the grammar
// existed): a failing one is read as the phrase of its words, which is
// what the plain substring search it was written for found. Nil when it
// holds no word.
func Lenient(s string) *Query {
	if q, err := Parse(s); err == nil {
		return q
	}
	w := words(Fold(s))
	if len(w) == 0 {
		return nil
	}
	return &Query{root: &node{kind: kPhrase, words: w}}
}

// hasTerm: a query of nothing but field filters and negations is still a
// search (everything but x), an empty group is not.
func hasTerm(n *node) bool {
	switch n.kind {
	case kAnd, kOr:
		return len(n.kids) > 0
	}
	return true
}

type tokKind uint8

const (
	tTerm tokKind = iota
	tOr
	tAnd
	tOpen
	tClose
)

type token struct {
	kind tokKind
	neg  bool
	n    *node // tTerm; nil for a term with no word (punctuation alone)
	text string
}

func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' || r == '\u3000':
			i += size
			continue
		case r == '(':
			out = append(out, token{kind: tOpen, text: "("})
			i++
			continue
		case r == ')':
			out = append(out, token{kind: tClose, text: ")"})
			i++
			continue
		}
		neg := false
		if r == '-' && i+1 < len(s) && !strings.ContainsRune(" \t\n\r-", rune(s[i+1])) {
			neg = true
			i++
			if s[i] == '(' {
				out = append(out, token{kind: tOpen, neg: true, text: "-("})
				i++
				continue
			}
		}
		if s[i] == '"' {
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errf(`close it with another " or remove it`, "the search has an unbalanced quote")
			}
			phrase := s[i+1 : i+1+j]
			w := words(Fold(phrase))
			if len(w) == 0 {
				return nil, errf(`put words between the quotes, e.g. "service outage"`, "the search has empty quotes")
			}
			out = append(out, token{kind: tTerm, neg: neg, n: &node{kind: kPhrase, words: w}, text: `"` + phrase + `"`})
			i += j + 2
			continue
		}
		j := i // the token runs to a space, a parenthesis or a quote
		for j < len(s) {
			r2, size := utf8.DecodeRuneInString(s[j:])
			if strings.ContainsRune(" \t\n\r()\"\u00a0\u3000", r2) {
				break
			}
			j += size
		}
		raw := s[i:j]
		i = j
		if !neg && raw == "OR" {
			out = append(out, token{kind: tOr, text: raw})
			continue
		}
		if !neg && raw == "AND" {
			out = append(out, token{kind: tAnd, text: raw})
			continue
		}
		n, err := term(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, token{kind: tTerm, neg: neg, n: n, text: raw})
	}
	return out, nil
}

// term reads one unquoted token: a field filter, a word, or words glued
// by punctuation (a phrase). Nil when it holds no word.
func term(raw string) (*node, error) {
	if name, value, ok := strings.Cut(raw, ":"); ok && isFieldName(name) && !strings.HasPrefix(value, "//") {
		return field(strings.ToLower(name), value)
	}
	w := words(Fold(raw))
	switch len(w) {
	case 0:
		return nil, nil
	case 1:
		return &node{kind: kWord, words: []string{stem(w[0])}}, nil
	}
	return &node{kind: kPhrase, words: w}, nil
}

func isFieldName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}

func field(name, value string) (*node, error) {
	if !slices.Contains(fields, name) {
		return nil, errf(`the fields are author:, source: and category:; to search the text "`+name+`:", put it in quotes`, "the search names an unknown field %s:", name)
	}
	if value == "" {
		return nil, errf("write the value right after the colon, e.g. "+name+":"+example(name), "the search's %s: has no value", name)
	}
	switch name {
	case "author":
		value = asciiLower(strings.TrimPrefix(value, "@"))
	case "source":
		value = strings.ToLower(value)
		if !slices.Contains(vocab.Sources, value) {
			return nil, errf("source: is one of "+strings.Join(vocab.Sources, ", "), "the search's source:%s is not a platform", value)
		}
	case "category":
		value = strings.ToLower(value)
		if !slices.Contains(vocab.Categories, value) {
			return nil, errf("category: is one of "+strings.Join(vocab.Categories, ", "), "the search's category:%s is not a category", value)
		}
	}
	return &node{kind: kField, field: name, value: value}, nil
}

func example(name string) string {
	switch name {
	case "source":
		return "reddit"
	case "category":
		return "bug_report"
	}
	return "acme"
}

// parser: OR binds tighter than the implicit AND (web search's reading).
type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() *token {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

// and reads units up to the end (or a closing parenthesis when inGroup).
func (p *parser) and(inGroup bool) (*node, error) {
	var kids []*node
	prevAnd := false
	for {
		t := p.peek()
		if t == nil || t.kind == tClose {
			if t != nil && !inGroup {
				return nil, errf("remove it or add the ( it closes", "the search has an unbalanced )")
			}
			if prevAnd {
				return nil, errf("put a term on both sides of AND, or leave it out (words are combined with AND anyway)", "the search ends with AND")
			}
			break
		}
		switch t.kind {
		case tAnd:
			if len(kids) == 0 || prevAnd {
				return nil, errf("put a term on both sides of AND, or leave it out (words are combined with AND anyway)", "the search has AND without a term before it")
			}
			prevAnd = true
			p.i++
			continue
		case tOr:
			return nil, errf("put a term on both sides of OR, e.g. outage OR refund", "the search has OR without a term before it")
		}
		prevAnd = false
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if n != nil {
			kids = append(kids, n)
		}
	}
	switch len(kids) {
	case 0:
		return nil, nil
	case 1:
		return kids[0], nil
	}
	return &node{kind: kAnd, kids: kids}, nil
}

func (p *parser) or() (*node, error) {
	first, err := p.unit()
	if err != nil {
		return nil, err
	}
	kids := []*node{first}
	for t := p.peek(); t != nil && t.kind == tOr; t = p.peek() {
		p.i++
		if n := p.peek(); n == nil || n.kind == tOr || n.kind == tAnd || n.kind == tClose {
			return nil, errf("put a term on both sides of OR, e.g. outage OR refund", "the search has OR without a term after it")
		}
		n, err := p.unit()
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	kids = slices.DeleteFunc(kids, func(n *node) bool { return n == nil })
	switch len(kids) {
	case 0:
		return nil, nil
	case 1:
		return kids[0], nil
	}
	return &node{kind: kOr, kids: kids}, nil
}

// unit reads a term or a parenthesised group, negated when marked.
func (p *parser) unit() (*node, error) {
	t := p.peek()
	p.i++
	var n *node
	switch t.kind {
	case tTerm:
		n = t.n
	case tOpen:
		g, err := p.and(true)
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c == nil || c.kind != tClose {
			return nil, errf("close it with ) or remove it", "the search has an unbalanced (")
		}
		p.i++
		n = g
	}
	if n != nil && t.neg {
		n = &node{kind: kNot, kids: []*node{n}}
	}
	return n, nil
}

// words splits folded text into its words (see isSep).
func words(s string) []string {
	return strings.FieldsFunc(s, isSep)
}

// endings are dropped from an unquoted word, longest first, when at least
// three letters stay: the rest is then a prefix of the word's other forms.
var endings = []string{"ies", "ing", "es", "ed", "s"}

func stem(w string) string {
	for _, e := range endings {
		rest, ok := strings.CutSuffix(w, e)
		if !ok || utf8.RuneCountInString(rest) < 3 {
			continue
		}
		if (e == "s" && strings.HasSuffix(rest, "s")) || (e == "ed" && strings.HasSuffix(rest, "e")) {
			return w // class, address; speed, need: not endings
		}
		return rest
	}
	return w
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
