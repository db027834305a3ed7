package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one unit of a post as the sentiment rules see it: a word with
// its surrounding punctuation removed, an emoticon, or an emoji.
type token struct {
	raw   string // as written (punctuation trimmed)
	low   string // lower case
	caps  bool   // a word of two or more letters written in capitals
	emoji bool
	sep   bool // a sentence boundary (".", "!", "?", ";") follows this token
}

// isEmojiRune reports runes that act as pictographs in social-media text.
func isEmojiRune(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // emoji blocks
		r >= 0x2600 && r <= 0x27BF, // misc symbols, dingbats
		r == 0x2B50, r == 0x2B55, r == 0x2764, r == 0x2665:
		return true
	}
	return false
}

// isEmojiModifier reports runes that attach to the emoji before them.
func isEmojiModifier(r rune) bool {
	return r == 0xFE0F || r == 0x200D || (r >= 0x1F3FB && r <= 0x1F3FF)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-' || r == '_'
}

// tokenize splits text into tokens. Emoticons are kept whole when the lexicon
// knows them; URLs are dropped.
func tokenize(text string, lex map[string]float64, dst []token) []token {
	for _, chunk := range strings.Fields(text) {
		low := strings.ToLower(chunk)
		if _, ok := lex[low]; ok && !hasLetter(chunk) {
			dst = append(dst, token{raw: chunk, low: low})
			continue
		}
		if strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "www.") {
			continue
		}
		// Emoticon followed by sentence punctuation, e.g. ":)!!".
		if trimmed := strings.TrimRight(low, "!?.,"); trimmed != low && !hasLetter(trimmed) {
			if _, ok := lex[trimmed]; ok {
				dst = append(dst, token{raw: trimmed, low: trimmed, sep: true})
				continue
			}
		}
		dst = splitChunk(chunk, dst)
	}
	return dst
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// splitChunk splits a whitespace-delimited chunk into words and emoji.
func splitChunk(chunk string, dst []token) []token {
	start := -1
	flush := func(end int, sep bool) {
		if start < 0 {
			return
		}
		w := strings.Trim(chunk[start:end], "'’-_")
		start = -1
		if w == "" {
			return
		}
		dst = append(dst, wordToken(w))
		if sep {
			dst[len(dst)-1].sep = true
		}
	}
	for i := 0; i < len(chunk); {
		r, size := utf8.DecodeRuneInString(chunk[i:])
		switch {
		case isEmojiRune(r):
			flush(i, false)
			j := i + size
			for j < len(chunk) {
				r2, s2 := utf8.DecodeRuneInString(chunk[j:])
				if !isEmojiModifier(r2) {
					break
				}
				j += s2
			}
			e := chunk[i:j]
			dst = append(dst, token{raw: e, low: e, emoji: true})
			i = j
			continue
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i, r == '.' || r == '!' || r == '?' || r == ';')
			if (r == '.' || r == '!' || r == '?' || r == ';') && len(dst) > 0 {
				dst[len(dst)-1].sep = true
			}
		}
		i += size
	}
	flush(len(chunk), false)
	return dst
}

func wordToken(w string) token {
	low := strings.ToLower(w)
	if strings.ContainsRune(low, '’') {
		low = strings.ReplaceAll(low, "’", "'")
	}
	letters, upper := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return token{raw: w, low: low, caps: letters >= 2 && upper == letters}
}

// containsWord reports whether lower-case text s contains w with no letter or
// digit glued on either side.
func containsWord(s, w string) bool {
	return indexWord(s, w) >= 0
}

func indexWord(s, w string) int {
	if w == "" {
		return -1
	}
	off := 0
	for {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(w)
		beforeOK := i == 0 || !isAlnumBefore(s, i)
		afterOK := end == len(s) || !isAlnumAt(s, end)
		if beforeOK && afterOK {
			return i
		}
		off = i + 1
	}
}

func isAlnumBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isAlnumAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// containsAny reports whether lower-case text s contains any of the phrases
// as words, and returns the first one found.
func containsAny(s string, phrases []string) (string, bool) {
	for _, p := range phrases {
		if containsWord(s, p) {
			return p, true
		}
	}
	return "", false
}
