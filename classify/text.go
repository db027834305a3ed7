package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one unit of a post as the sentiment rules see it: a
// whitespace-separated word with surrounding punctuation removed (kept
// whole when that would leave two characters or fewer, so emoticons such as
// ":)" and "<3" survive), or an emoji.
type token struct {
	low   string // lower case, curly apostrophes straightened
	upper bool   // written in capitals (has cased letters, none lower case)
	emoji bool
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

// tokenize splits text into tokens the way VADER does: on white space,
// stripping punctuation from word edges, dropping one-character tokens and
// URLs. Emoji are split off as tokens of their own.
func tokenize(text string, dst []token) []token {
	for _, chunk := range strings.Fields(text) {
		if len(chunk) > 4 && (chunk[0] == 'h' || chunk[0] == 'H' || chunk[0] == 'w' || chunk[0] == 'W') {
			l := strings.ToLower(chunk)
			if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "www.") {
				continue
			}
		}
		// Split emoji runs out of the chunk.
		start := 0
		for i := 0; i < len(chunk); {
			r, size := utf8.DecodeRuneInString(chunk[i:])
			if r < 0x2600 || !isEmojiRune(r) {
				i += size
				continue
			}
			dst = appendWord(dst, chunk[start:i])
			j := i + size
			for j < len(chunk) {
				r2, s2 := utf8.DecodeRuneInString(chunk[j:])
				if !isEmojiModifier(r2) {
					break
				}
				j += s2
			}
			dst = append(dst, token{low: chunk[i:j], emoji: true})
			i, start = j, j
		}
		dst = appendWord(dst, chunk[start:])
	}
	return dst
}

func isASCIIPunct(b byte) bool {
	return b >= '!' && b <= '/' || b >= ':' && b <= '@' || b >= '[' && b <= '`' || b >= '{' && b <= '~'
}

func appendWord(dst []token, w string) []token {
	s, e := 0, len(w)
	for s < e && isASCIIPunct(w[s]) {
		s++
	}
	for e > s && isASCIIPunct(w[e-1]) {
		e--
	}
	if e-s > 2 {
		w = w[s:e]
	}
	if len(w) <= 1 {
		return dst
	}
	cased, lower := false, false
	for _, r := range w {
		if unicode.IsUpper(r) {
			cased = true
		} else if unicode.IsLower(r) {
			cased, lower = true, true
		}
	}
	low := w
	if cased {
		low = strings.ToLower(w)
	}
	if strings.ContainsRune(low, '’') {
		low = strings.ReplaceAll(low, "’", "'")
	}
	return append(dst, token{low: low, upper: cased && !lower})
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

// phraseSet finds which of its lower-case phrases occur in a text as words
// (indexWord's rule: not inside a longer run of letters or digits) in one
// pass over the text's words, instead of one substring search per phrase:
// the classifier checks some two hundred cue phrases on every post.
type phraseSet struct {
	phrases []string
	byWord  map[string][]int // a phrase's leading letters/digits → its indexes
	other   []int            // phrases not starting with a letter or digit
}

func newPhraseSet(phrases []string) *phraseSet {
	ps := &phraseSet{phrases: phrases, byWord: map[string][]int{}}
	for i, p := range phrases {
		if w := leadingWord(p); w != "" {
			ps.byWord[w] = append(ps.byWord[w], i)
		} else if p != "" {
			ps.other = append(ps.other, i)
		}
	}
	return ps
}

// leadingWord is the run of letters and digits s starts with.
func leadingWord(s string) string {
	end := 0
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		end += n
	}
	return s[:end]
}

// hits is match with its own result slice: buf's storage when it is large
// enough (cleared first), a new slice otherwise.
func (ps *phraseSet) hits(s string, buf []bool) ([]bool, bool) {
	var hit []bool
	if n := len(ps.phrases); n <= cap(buf) {
		hit = buf[:n]
		clear(hit)
	} else {
		hit = make([]bool, n)
	}
	return hit, ps.match(s, hit)
}

// match sets hit[i] for every phrase i that occurs in s as words and
// reports whether any did. A phrase starting with a letter or digit can
// only match where a word of s starts, and the word there must be the
// phrase's leading word, so each word of s is looked up once.
func (ps *phraseSet) match(s string, hit []bool) bool {
	found := false
	for _, i := range ps.other {
		if indexWord(s, ps.phrases[i]) >= 0 {
			hit[i], found = true, true
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		w := leadingWord(s[i:])
		for _, k := range ps.byWord[w] {
			p := ps.phrases[k]
			if end := i + len(p); !hit[k] && strings.HasPrefix(s[i:], p) && (end == len(s) || !isAlnumAt(s, end)) {
				hit[k], found = true, true
			}
		}
		i += len(w)
	}
	return found
}
