package classify

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSummaryRunes is the longest summary Summarize returns.
const MaxSummaryRunes = 200

// Summarize picks the one sentence of text that best says what the post is
// about (it names the brand, carries a problem or request cue, comes early),
// without HTML or line breaks, at most MaxSummaryRunes characters. It never
// returns an empty string.
func Summarize(text string, keywords []string) string {
	if len(text) > 4*maxAnalyzed {
		text = truncateUTF8(text, 4*maxAnalyzed)
	}
	// A line break ends a sentence: titles and list items rarely end with
	// a full stop, and joined to the next line they read as one run-on.
	var sentences []string
	for _, line := range strings.Split(stripHTML(text), "\n") {
		if c := collapseSpace(line); c != "" {
			sentences = append(sentences, splitSentences(c)...)
		}
	}
	if len(sentences) == 0 {
		return "(empty post)"
	}
	var terms []string
	for _, k := range keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			terms = append(terms, k)
		}
	}
	best, bestScore := "", -1e9
	for i, s := range sentences {
		if i >= 30 {
			break
		}
		low := strings.ToLower(s)
		score := 0.0
		if i == 0 {
			score += 1
		}
		for _, k := range terms {
			if containsWord(low, k) {
				score += 2
				break
			}
		}
		for _, cs := range []*cueList{bugCues, ideaCues, complaintCues, misinfoCues} {
			if v, _ := cueScore(low, cs); v > 0 {
				score += 1.5
				break
			}
		}
		// The sentence that tells the gravest thing (a secret in plain
		// text, lost data, an outage) says what the post is about.
		if name, _ := criticalAlarm(low); name != "" {
			score += 1
		}
		n := utf8.RuneCountInString(s)
		switch {
		case n < 15:
			score -= 2
		case n > MaxSummaryRunes:
			score -= 0.5
		}
		if score > bestScore {
			best, bestScore = s, score
		}
	}
	return cutAtWord(best, MaxSummaryRunes)
}

// cleanText removes HTML tags and entities, whitespace runs and control
// characters, leaving one line.
func cleanText(s string) string { return collapseSpace(stripHTML(s)) }

// stripHTML removes HTML tags (and the contents of script and style
// elements, which are not text) and decodes entities.
func stripHTML(s string) string {
	if strings.ContainsAny(s, "<&") {
		s = dropElements(s, "script", "style")
		s = stripTags(s)
		s = html.UnescapeString(s)
		s = stripTags(s) // entities may have encoded tags
	}
	return s
}

// collapseSpace turns runs of white space and control characters into one
// space and trims the ends.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// stripTags removes HTML tags. In HTML a line break is only space, so
// breaks in the text become spaces and block tags (p, br, div, li, h1-h6,
// tr, blockquote) become the line breaks.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in, tagStart := false, 0
	for i, r := range s {
		switch {
		case r == '<' && !in && tagOpens(s[i+1:]):
			in, tagStart = true, i+1
		case r == '>' && in:
			in = false
			if blockTag(s[tagStart:i]) {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		case !in && r == '\n':
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tagOpens reports whether the text after a "<" starts a tag, comment or
// doctype (a letter, "/" or "!"), so "I <3 it" and "a < b" stay text.
func tagOpens(rest string) bool {
	if rest == "" {
		return false
	}
	c := rest[0]
	return c == '/' || c == '!' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// blockTag reports whether the inside of a tag ("p", "/div", "br/",
// "li class=x") names a block element.
func blockTag(tag string) bool {
	tag = strings.TrimLeft(tag, "/")
	end := strings.IndexFunc(tag, func(r rune) bool { return r == ' ' || r == '/' || r == '\t' || r == '\n' })
	if end >= 0 {
		tag = tag[:end]
	}
	switch strings.ToLower(tag) {
	case "p", "br", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote":
		return true
	}
	return false
}

// splitSentences splits at ".", "!" or "?" followed by a space.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '.' || c == '!' || c == '?') && i+1 < len(s) && s[i+1] == ' ' {
			j := i + 1
			if t := strings.TrimSpace(s[start:j]); t != "" {
				out = append(out, t)
			}
			start = j
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// cutAtWord shortens s to at most n runes, cutting at a word boundary and
// ending with "…" when it had to cut.
func cutAtWord(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	// Byte offset of rune n-1 (leave room for the ellipsis).
	cut, count := len(s), 0
	for i := range s {
		if count == n-1 {
			cut = i
			break
		}
		count++
	}
	head := s[:cut]
	if sp := strings.LastIndexByte(head, ' '); sp > len(head)/2 {
		head = head[:sp]
	}
	head = strings.TrimRightFunc(head, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) && r != ')' && r != '"' })
	if head == "" {
		head = s[:cut]
	}
	return head + "…"
}

// dropElements removes each <name …>…</name> element of s, contents
// included (ASCII case-insensitive; an unclosed one runs to the end). One
// forward pass over s itself: positions found in a lower-cased copy would
// not be positions in s (lower-casing changes some characters' length).
func dropElements(s string, names ...string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		name := elementAt(s[j+1:], names)
		if name == "" {
			b.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		b.WriteString(s[i:j])
		b.WriteByte(' ')
		end := indexCloseTag(s[j+1:], name)
		if end < 0 {
			return b.String()
		}
		i = j + 1 + end
	}
	return b.String()
}

// elementAt returns the name in names that rest starts with as a complete
// tag name ("script>" or "script src=…", not "scripts"), or "".
func elementAt(rest string, names []string) string {
	for _, n := range names {
		if len(rest) >= len(n) && asciiEqualFold(rest[:len(n)], n) && tagEnds(rest[len(n):]) {
			return n
		}
	}
	return ""
}

// indexCloseTag returns the offset just past "</name…>" in s, or -1.
func indexCloseTag(s, name string) int {
	for off := 0; ; {
		k := strings.Index(s[off:], "</")
		if k < 0 {
			return -1
		}
		k += off + 2
		if len(s)-k >= len(name) && asciiEqualFold(s[k:k+len(name)], name) {
			if gt := strings.IndexByte(s[k:], '>'); gt >= 0 {
				return k + gt + 1
			}
			return len(s)
		}
		off = k
	}
}

// asciiEqualFold compares a byte string with a lower-case ASCII name,
// ignoring ASCII case only.
func asciiEqualFold(a, lowerName string) bool {
	for i := 0; i < len(lowerName); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerName[i] {
			return false
		}
	}
	return true
}

// tagEnds reports whether a tag name is complete at the start of rest
// ("<script>" or "<script src=…>", not "<scripts").
func tagEnds(rest string) bool {
	return rest == "" || rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '/'
}
