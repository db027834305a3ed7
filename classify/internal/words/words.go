// Package words splits text into the lower-case words the relevance model
// and the classifier's cue analysis work on.
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

// Words splits text into lower-case words of letters, digits and apostrophes.
// Numbers are folded into "<num>" so error codes generalise.
func Words(text string) []string {
	var out []string
	start := -1
	hasDigit := false
	emit := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(strings.ToLower(text[start:end]), "'")
		w = strings.ReplaceAll(w, "’", "'")
		if w != "" {
			if hasDigit {
				w = "<num>"
			}
			out = append(out, w)
		}
		start = -1
		hasDigit = false
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
			if unicode.IsDigit(r) {
				hasDigit = true
			}
			continue
		}
		emit(i)
	}
	emit(len(text))
	return out
}

// IsStopword reports whether w is a function word with no topical signal.
func IsStopword(w string) bool { return stopwords[w] }
