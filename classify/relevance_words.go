package classify

import (
	_ "embed"
	"strings"
	"sync"
)

//go:generate go run ./internal/genwords -out commonwords.txt

// commonWordsText is the list commonWord reads (see internal/genwords; the
// SCOWL notice is in the file's header).
//
//go:embed commonwords.txt
var commonWordsText string

var dictWords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 20000)
	for line := range strings.Lines(commonWordsText) {
		line = strings.TrimSpace(line)
		if line != "" && line[0] != '#' {
			m[line] = struct{}{}
		}
	}
	return m
})

// commonWord reports whether w (lower case) is a common English word or
// name, or an inflection of one ("notions", "slacking").
func commonWord(w string) bool {
	set := dictWords()
	if _, ok := set[w]; ok {
		return true
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing", "ly"} {
		if s, ok := strings.CutSuffix(w, suf); ok && len(s) >= 3 {
			if _, ok := set[s]; ok {
				return true
			}
			if suf == "ing" {
				if _, ok := set[s+"e"]; ok {
					return true
				}
			}
		}
	}
	return false
}
