// Package words splits text into the lower-case words the relevance model,
// the category model and the classifier's cue analysis work on.
package words

import (
	"strings"
	"unicode"
)

// stopwords carry no topical signal.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on at for with is are was were be been it its
		this that these those i me my we our you your he she they them their his her as by from so
		am do does did has have had just very also than then there here what which who`) {
		m[w] = true
	}
	return m
}()

// Break is the word WithBreaks puts where sentence or clause punctuation
// was. No word Words returns is ever Break.
const Break = "."

// Words splits text into lower-case words of letters, digits and apostrophes.
// Numbers are folded into "<num>" so error codes generalise.
func Words(text string) []string { return split(text, nil, false) }

// WithBreaks is Words with Break wherever ".", "!", "?", ";", "," or a line
// break ends a clause (never two in a row, never first). Dropping the Breaks
// gives exactly Words(text).
func WithBreaks(text string) []string { return split(text, make([]string, 0, 32), true) }

// Without returns ws without its Breaks, reusing dst's storage.
func Without(ws, dst []string) []string {
	for _, w := range ws {
		if w != Break {
			dst = append(dst, w)
		}
	}
	return dst
}

func split(text string, out []string, breaks bool) []string {
	start := -1
	digit := false
	emit := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(strings.ToLower(text[start:end]), "'")
		if strings.ContainsRune(w, '’') {
			w = strings.ReplaceAll(w, "’", "'")
		}
		if w != "" {
			if digit {
				w = "<num>"
			}
			out = append(out, w)
		}
		start, digit = -1, false
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
			if unicode.IsDigit(r) {
				digit = true
			}
			continue
		}
		emit(i)
		if breaks && (r == '.' || r == '!' || r == '?' || r == ';' || r == ',' || r == '\n') {
			if len(out) > 0 && out[len(out)-1] != Break {
				out = append(out, Break)
			}
		}
	}
	emit(len(text))
	return out
}

// IsStopword reports whether w is a function word with no topical signal.
func IsStopword(w string) bool { return stopwords[w] }
