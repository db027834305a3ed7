package ui

import (
	"html/template"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"earshot/api"
	"earshot/search"
)

// highlight escapes text and wraps each match in <mark>: the words and
// phrases of the search as list_mentions' search matches them (package
// search; a word prefix marks its whole word), each keyword only where it
// occurs as a keyword matches (no letter or digit glued on either side,
// docs/decisions.md#monitors).
func highlight(text string, q *search.Query, keywords []string) template.HTML {
	type span struct{ a, b int }
	var spans []span
	if q != nil {
		for _, s := range q.Spans(text) {
			spans = append(spans, span{s[0], s[1]})
		}
	}
	add := func(term string, whole bool) {
		term = strings.TrimSpace(term)
		if term == "" {
			return
		}
		re := termRegexp(term)
		if re == nil {
			return
		}
		for _, m := range re.FindAllStringIndex(text, -1) {
			if whole && (glued(text, m[0], false) || glued(text, m[1], true)) {
				continue
			}
			spans = append(spans, span{m[0], m[1]})
		}
	}
	for _, k := range keywords {
		add(k, true)
	}
	if len(spans) == 0 {
		return template.HTML(template.HTMLEscapeString(text))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var b strings.Builder
	pos := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		// Merge overlapping matches into one mark.
		for i++; i < len(spans) && spans[i].a <= s.b; i++ {
			s.b = max(s.b, spans[i].b)
		}
		if s.a < pos {
			s.a = pos
		}
		b.WriteString(template.HTMLEscapeString(text[pos:s.a]))
		b.WriteString("<mark>")
		b.WriteString(template.HTMLEscapeString(text[s.a:s.b]))
		b.WriteString("</mark>")
		pos = s.b
	}
	b.WriteString(template.HTMLEscapeString(text[pos:]))
	return template.HTML(b.String())
}

// termRegexps caches the compiled case-insensitive matcher of each term:
// an inbox page highlights the same few terms in every row.
var termRegexps = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

func termRegexp(term string) *regexp.Regexp {
	termRegexps.Lock()
	defer termRegexps.Unlock()
	if re, ok := termRegexps.m[term]; ok {
		return re
	}
	re, err := regexp.Compile(`(?i)` + regexp.QuoteMeta(term))
	if err != nil {
		return nil
	}
	if len(termRegexps.m) >= 1024 { // bounded: search terms come from users
		clear(termRegexps.m)
	}
	termRegexps.m[term] = re
	return re
}

// glued reports whether a letter or digit touches position i of s, after it
// (after) or before it.
func glued(s string, i int, after bool) bool {
	var r rune
	if after {
		if i >= len(s) {
			return false
		}
		r, _ = utf8.DecodeRuneInString(s[i:])
	} else {
		if i <= 0 {
			return false
		}
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// HL is a mention's text (or summary) with its monitors' keywords and the
// inbox's search term marked.
func (d rowsData) HL(s string, m *api.Mention) template.HTML {
	var kws []string
	seen := map[string]bool{}
	for _, id := range m.MonitorIDs {
		for _, k := range d.Keywords[id] {
			if !seen[strings.ToLower(k)] {
				seen[strings.ToLower(k)] = true
				kws = append(kws, k)
			}
		}
	}
	if m.MonitorID != nil && len(m.MonitorIDs) == 0 {
		kws = d.Keywords[*m.MonitorID]
	}
	return highlight(s, search.Lenient(d.Search), kws)
}

// snipBefore is how many characters a compact row's snippet keeps before
// the search's first match, so the match shows on the row's one line.
const snipBefore = 30

// Snip is HL over a compact row's one line: the text from shortly before
// the search's first match (… marks the cut), so the matched word is on
// screen; the whole text when nothing matched or rows are comfortable.
func (d rowsData) Snip(s string, m *api.Mention) template.HTML {
	if a := d.firstHit(s); a > 0 && d.Compact {
		if cut := snipStart(s, a); cut > 0 {
			return "…" + d.HL(s[cut:], m)
		}
	}
	return d.HL(s, m)
}

// Hit reports whether the search matches in s (a compact row then shows
// its text line on a phone too).
func (d rowsData) Hit(s string) bool { return d.firstHit(s) >= 0 }

func (d rowsData) firstHit(s string) int {
	if q := search.Lenient(d.Search); q != nil {
		if sp := q.Spans(s); len(sp) > 0 {
			return sp[0][0]
		}
	}
	return -1
}

// snipStart is where a snippet of s showing byte a starts: about
// snipBefore characters before it, at a word's start; 0 when that is
// the text's start anyway.
func snipStart(s string, a int) int {
	start := a
	for range snipBefore {
		if start == 0 {
			return 0
		}
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	if i := strings.IndexByte(s[start:a], ' '); i >= 0 {
		return start + i + 1
	}
	return start
}

// Title is what a row is headed with: the AI summary, unless it only
// repeats the post's text (then the text itself heads the row).
func (d rowsData) Title(m *api.Mention) string {
	if m.AISummary == "" || repeats(m.AISummary, m.Text) {
		return ""
	}
	return m.AISummary
}

// repeats reports whether summary says nothing the text's start does not:
// most of its words occur in the text's first sentence (or it is a prefix).
func repeats(summary, text string) bool {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	sw := norm(summary)
	if len(sw) == 0 {
		return true
	}
	first := text
	if i := strings.IndexAny(text, ".!?\n"); i > 0 {
		first = text[:i]
	}
	tw := map[string]bool{}
	for _, w := range norm(first) {
		tw[w] = true
	}
	n := 0
	for _, w := range sw {
		if tw[w] {
			n++
		}
	}
	return n*10 >= len(sw)*8 // 80 % of the summary's words are already there
}
