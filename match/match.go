// Package match is the keyword rule a monitor applies to a post: literal,
// case-insensitive keywords on word boundaries under a query mode,
// exclusions, and watched accounts. The collectors' pipeline and the
// catalogue's monitor preview share it, so a preview matches what a scan
// would store.
package match

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule is what a monitor asks of a post (docs/decisions.md#monitors): literal,
// case-insensitive keywords under a query mode, exclusions, and accounts
// whose every post is wanted.
type Rule struct {
	Keywords        []string
	ExcludeKeywords []string
	QueryMode       string // any (default), all, phrase
	WatchAccounts   []string
}

// Item is what a rule reads of a post.
type Item struct {
	Text         string
	AuthorHandle string
	AuthorID     string   // a stable account id where it differs from the handle (a Bluesky DID)
	Links        []string // pages the post links to that its text may not show
}

// Match reports whether it is a mention under r. It compiles r on every
// call; use Compile when one rule meets many posts.
func (r Rule) Match(it Item) bool { return Compile(r).Match(it) }

// Matcher is a compiled Rule: keywords folded and split once, so matching a
// post costs one fold of its text plus a substring search per keyword.
type Matcher struct {
	mode     string
	keywords []pattern // any/all: one per keyword; phrase: a single pattern
	excludes []pattern
	accounts map[string]bool // folded handles without @
}

// pattern is a folded keyword split at white space; its tokens must occur
// separated by one or more white-space runes.
type pattern []string

// Compile prepares r for repeated matching.
func Compile(r Rule) *Matcher {
	m := &Matcher{mode: strings.ToLower(strings.TrimSpace(r.QueryMode))}
	if m.mode == "" {
		m.mode = "any"
	}
	if m.mode == "phrase" {
		var toks []string
		for _, k := range r.Keywords {
			toks = append(toks, strings.Fields(foldText(k))...)
		}
		if len(toks) > 0 {
			m.keywords = []pattern{toks}
		}
	} else {
		m.keywords = compilePatterns(r.Keywords)
	}
	m.excludes = compilePatterns(r.ExcludeKeywords)
	for _, a := range r.WatchAccounts {
		if h := NormHandle(a); h != "" {
			if m.accounts == nil {
				m.accounts = map[string]bool{}
			}
			m.accounts[h] = true
		}
	}
	return m
}

func compilePatterns(kws []string) []pattern {
	var out []pattern
	for _, k := range kws {
		if toks := strings.Fields(foldText(k)); len(toks) > 0 {
			out = append(out, toks)
		}
	}
	return out
}

// NormHandle is a handle as rules compare them: folded, without "@".
func NormHandle(h string) string {
	return foldText(strings.TrimPrefix(strings.TrimSpace(h), "@"))
}

// Match reports whether p is a mention under the compiled rule.
// The post's Links are read with its text: a link-only post (an X post
// whose text is one t.co link) is about the page it links.
func (m *Matcher) Match(p Item) bool {
	text := foldText(p.Text)
	if len(p.Links) > 0 {
		text += "\n" + foldText(strings.Join(p.Links, "\n"))
	}
	for _, ex := range m.excludes {
		if ex.occursIn(text) {
			return false
		}
	}
	if len(m.accounts) > 0 && (p.AuthorHandle != "" && m.accounts[NormHandle(p.AuthorHandle)] ||
		p.AuthorID != "" && m.accounts[NormHandle(p.AuthorID)]) {
		return true
	}
	if len(m.keywords) == 0 {
		return false
	}
	switch m.mode {
	case "all":
		for _, k := range m.keywords {
			if !k.occursIn(text) {
				return false
			}
		}
		return true
	default: // any, phrase (phrase holds a single pattern)
		for _, k := range m.keywords {
			if k.occursIn(text) {
				return true
			}
		}
		return false
	}
}

// occursIn reports whether the pattern occurs in folded text with no word
// rune glued on either side.
func (p pattern) occursIn(text string) bool {
	first := p[0]
	for from := 0; from <= len(text)-len(first); {
		i := strings.Index(text[from:], first)
		if i < 0 {
			return false
		}
		start := from + i
		if end, ok := p.matchAt(text, start); ok && !wordBefore(text, start) && !wordAfter(text, end) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

// matchAt matches the pattern's tokens from start (where the first token is
// known to sit) and returns the end of the match.
func (p pattern) matchAt(text string, start int) (int, bool) {
	j := start + len(p[0])
	for _, tok := range p[1:] {
		k := j
		for k < len(text) {
			r, size := utf8.DecodeRuneInString(text[k:])
			if !unicode.IsSpace(r) {
				break
			}
			k += size
		}
		if k == j || !strings.HasPrefix(text[k:], tok) {
			return 0, false
		}
		j = k + len(tok)
	}
	return j, true
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	// A combining mark glued to a keyword makes another word ("cafe" is not
	// "café" written with U+0301).
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func wordBefore(text string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isWordRune(r)
}

func wordAfter(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r)
}

// foldText maps every rune to a canonical member of its Unicode simple
// case-folding orbit, so "CAFÉ", "Café" and "café" fold alike (and "K",
// the Kelvin sign, folds with "k"). ASCII text takes a fast path.
func foldText(s string) string {
	ascii := true
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if ascii {
		if !upper {
			return s
		}
		b := make([]byte, len(s))
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		return string(b)
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, foldRune(r))
		i += size
	}
	return string(b)
}

// foldRune returns the smallest rune in r's case-folding orbit, lowered for
// ASCII so folded ASCII text stays lower case.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	if 'A' <= min && min <= 'Z' {
		min += 'a' - 'A'
	}
	return min
}
