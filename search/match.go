package search

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// sepRanges are the non-ASCII runes that separate words: Latin-1
// punctuation and signs, general punctuation (dashes, curly quotes, the
// ellipsis, zero-width joiners), symbols and arrows, CJK and full-width
// punctuation, variation selectors and emoji. Every ASCII rune but a
// letter or digit separates too. Any other rune is part of a word. The
// list is explicit, not Unicode's categories, because PostgreSQL's regex
// (sepClass) must draw the same line over a C-collated column, where it
// knows no categories beyond ASCII.
var sepRanges = [][2]rune{
	{0x80, 0xBF}, {0xD7, 0xD7}, {0xF7, 0xF7}, {0x2000, 0x2BFF}, {0x3000, 0x303F},
	{0xFE00, 0xFE0F}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF0F}, {0xFF1A, 0xFF20},
	{0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}, {0x1F000, 0x1FAFF},
}

// isSep reports whether r separates words.
func isSep(r rune) bool {
	if r < 0x80 {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}
	for _, g := range sepRanges {
		if g[0] <= r && r <= g[1] {
			return true
		}
	}
	return false
}

// sepClass is isSep as a PostgreSQL regex bracket expression.
func sepClass() string {
	esc := func(r rune) string {
		if r > 0xFFFF {
			return fmt.Sprintf(`\U%08x`, r)
		}
		return fmt.Sprintf(`\u%04x`, r)
	}
	var b strings.Builder
	b.WriteString("[")
	for _, g := range append([][2]rune{{0x01, 0x2F}, {0x3A, 0x40}, {0x5B, 0x60}, {0x7B, 0x7F}}, sepRanges...) {
		b.WriteString(esc(g[0]))
		if g[1] != g[0] {
			b.WriteString("-" + esc(g[1]))
		}
	}
	b.WriteString("]")
	return b.String()
}

// Doc is what a search tests of a mention.
type Doc struct {
	Text, Author, Source, Category string
}

// Match reports whether the query selects the mention, as its SQL does.
func (q *Query) Match(d Doc) bool {
	return q.root.match(Fold(d.Text), d)
}

func (n *node) match(folded string, d Doc) bool {
	switch n.kind {
	case kWord, kPhrase:
		a, _ := n.find(folded, 0)
		return a >= 0
	case kField:
		switch n.field {
		case "author":
			return asciiLower(d.Author) == n.value
		case "source":
			return d.Source == n.value
		default:
			return d.Category == n.value
		}
	case kNot:
		return !n.kids[0].match(folded, d)
	case kOr:
		for _, k := range n.kids {
			if k.match(folded, d) {
				return true
			}
		}
		return false
	}
	for _, k := range n.kids {
		if !k.match(folded, d) {
			return false
		}
	}
	return true
}

// MatchLeaf is SQLite's earshot_match: whether folded text holds the leaf
// encoded by leafArg ("p stem" or "e word word…").
func MatchLeaf(folded, leaf string) bool {
	k, rest, _ := strings.Cut(leaf, " ")
	n := &node{kind: kWord, words: []string{rest}}
	if k == "e" {
		n = &node{kind: kPhrase, words: strings.Split(rest, " ")}
	}
	a, _ := n.find(folded, 0)
	return a >= 0
}

func (n *node) leafArg() string {
	if n.kind == kWord {
		return "p " + n.words[0]
	}
	return "e " + strings.Join(n.words, " ")
}

// find returns the first match of a word or phrase leaf in folded text at
// or after byte from: [a, b), b the end of the word a prefix matched in;
// a is -1 when there is none.
func (n *node) find(s string, from int) (int, int) {
	w0 := n.words[0]
	for from <= len(s) {
		i := strings.Index(s[from:], w0)
		if i < 0 {
			return -1, -1
		}
		a := from + i
		from = a + 1
		if a > 0 {
			if r, _ := utf8.DecodeLastRuneInString(s[:a]); !isSep(r) {
				continue
			}
		}
		j := a + len(w0)
		if n.kind == kWord {
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if isSep(r) {
					break
				}
				j += size
			}
			return a, j
		}
		if end, ok := phraseRest(s, j, n.words[1:]); ok {
			return a, end
		}
	}
	return -1, -1
}

// phraseRest matches the rest of a phrase after its first word ends at j:
// each next word after one or more separators, and the last word whole.
func phraseRest(s string, j int, rest []string) (int, bool) {
	for _, w := range rest {
		k := j
		for k < len(s) {
			r, size := utf8.DecodeRuneInString(s[k:])
			if !isSep(r) {
				break
			}
			k += size
		}
		if k == j || !strings.HasPrefix(s[k:], w) {
			return 0, false
		}
		j = k + len(w)
	}
	if j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); !isSep(r) {
			return 0, false
		}
	}
	return j, true
}

// SQL is the query's predicate on mentions m. On PostgreSQL the text is
// read from m.text_folded (the text under Fold, written at ingest): each
// word or phrase is a regex on it that draws word boundaries exactly. On
// SQLite earshot_match (store) folds m.text and runs MatchLeaf. Fields
// compare as the list filters of the same name do.
func (q *Query) SQL(pg bool) (string, []any) {
	var args []any
	var b strings.Builder
	q.root.sql(pg, &b, &args)
	return b.String(), args
}

func (n *node) sql(pg bool, b *strings.Builder, args *[]any) {
	switch n.kind {
	case kWord, kPhrase:
		if !pg {
			b.WriteString(`earshot_match(m.text, ?)`)
			*args = append(*args, n.leafArg())
			return
		}
		// One regex on the column: pg_trgm's index answers it (from the
		// words' trigrams) and the planner estimates it from the column's
		// sample of texts, as it did the LIKE of a substring search.
		b.WriteString(`m.text_folded ~ ?`)
		*args = append(*args, n.regex())
	case kField:
		switch {
		case n.field == "author" && pg:
			b.WriteString(`lower(m.author_handle) = ?`)
		case n.field == "author":
			b.WriteString(`m.author_handle = ? COLLATE NOCASE`)
		default:
			b.WriteString(`m.` + n.field + ` = ?`) // field is one of fields
		}
		*args = append(*args, n.value)
	case kNot:
		b.WriteString("NOT ")
		n.kids[0].sql(pg, b, args)
	default:
		op := " AND "
		if n.kind == kOr {
			op = " OR "
		}
		b.WriteString("(")
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(op)
			}
			k.sql(pg, b, args)
		}
		b.WriteString(")")
	}
}

// regex is a word or phrase leaf as a PostgreSQL regex over folded text.
// Words hold no ASCII punctuation (isSep), so no regex metacharacter.
func (n *node) regex() string {
	sep := sepClass()
	if n.kind == kWord {
		return `(^|` + sep + `)` + n.words[0]
	}
	return `(^|` + sep + `)` + strings.Join(n.words, sep+`+`) + `($|` + sep + `)`
}

// maxWordTrigrams bounds how many of a long word's trigrams the index is
// asked for: a dozen already narrow the candidates to a handful.
const maxWordTrigrams = 12

// FTS is an FTS5 query over SQLite's trigram index of folded text whose
// rows include every row the query selects (the exact predicate, SQL, then
// decides), or false when the index cannot narrow the search: a word
// shorter than three letters, a negation or a field leaves the part it is
// in unconstrained.
func (q *Query) FTS() (string, bool) {
	return q.root.fts()
}

func (n *node) fts() (string, bool) {
	switch n.kind {
	case kWord, kPhrase:
		var parts []string
		for _, w := range n.words {
			parts = append(parts, trigrams(w)...)
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " AND ") + ")", true
	case kAnd:
		var parts []string
		for _, k := range n.kids {
			if e, ok := k.fts(); ok {
				parts = append(parts, e)
			}
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " AND ") + ")", true
	case kOr:
		var parts []string
		for _, k := range n.kids {
			e, ok := k.fts()
			if !ok {
				return "", false
			}
			parts = append(parts, e)
		}
		return "(" + strings.Join(parts, " OR ") + ")", true
	}
	return "", false
}

// trigrams are a word's quoted trigrams, at most maxWordTrigrams spread
// over it (first and last included).
func trigrams(w string) []string {
	r := []rune(w)
	n := len(r) - 2
	if n <= 0 {
		return nil
	}
	picks := min(n, maxWordTrigrams)
	var out []string
	last := -1
	for k := range picks {
		i := k * (n - 1) / max(picks-1, 1)
		if i == last {
			continue
		}
		last = i
		out = append(out, `"`+strings.ReplaceAll(string(r[i:i+3]), `"`, `""`)+`"`)
	}
	return out
}

// Spans are the byte ranges [a, b) of text that the query's words and
// phrases match, outside negations; a word prefix marks its whole word.
// For highlighting: sorted, possibly overlapping.
func (q *Query) Spans(text string) [][2]int {
	folded, start, end := foldMap(text)
	var out [][2]int
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case kWord, kPhrase:
			for from := 0; from <= len(folded); {
				a, b := n.find(folded, from)
				if a < 0 || b <= a {
					break
				}
				out = append(out, [2]int{start[a], end[b-1]})
				from = b
			}
		case kAnd, kOr:
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(q.root)
	slices.SortFunc(out, func(x, y [2]int) int { return x[0] - y[0] })
	return out
}

// foldMap folds text rune by rune, with each folded byte's original rune
// start and end.
func foldMap(text string) (string, []int, []int) {
	var b strings.Builder
	var start, end []int
	for i, r := range text {
		f := Fold(string(r))
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(text[i:])
		}
		for range len(f) {
			start = append(start, i)
			end = append(end, i+size)
		}
		b.WriteString(f)
	}
	return b.String(), start, end
}

// Narrow lifts the query's top-level positive field filters out for the
// list's own filters (their indexes): it returns the remaining query (nil
// when nothing remains) and the author, source and category it required.
// A field already set by the caller (given non-empty) stays in the query.
func (q *Query) Narrow(author, source, category string) (rest *Query, a, s, c string) {
	a, s, c = author, source, category
	var kids []*node
	top := []*node{q.root}
	if q.root.kind == kAnd {
		top = q.root.kids
	}
	for _, k := range top {
		if k.kind == kField {
			switch {
			case k.field == "author" && a == "":
				a = k.value
				continue
			case k.field == "source" && s == "":
				s = k.value
				continue
			case k.field == "category" && c == "":
				c = k.value
				continue
			}
		}
		kids = append(kids, k)
	}
	switch len(kids) {
	case 0:
		return nil, a, s, c
	case 1:
		return &Query{root: kids[0]}, a, s, c
	}
	return &Query{root: &node{kind: kAnd, kids: kids}}, a, s, c
}
