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
	clean := cleanText(text)
	if clean == "" {
		return "(empty post)"
	}
	sentences := splitSentences(clean)
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
	if best == "" {
		best = clean
	}
	return cutAtWord(best, MaxSummaryRunes)
}

// cleanText removes HTML tags and entities, URLs-free whitespace runs and
// control characters, leaving one line.
func cleanText(s string) string {
	if strings.ContainsAny(s, "<&") {
		s = stripTags(s)
		s = html.UnescapeString(s)
		s = stripTags(s) // entities may have encoded tags
	}
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

func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
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
