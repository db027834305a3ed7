package store

import (
	"strings"
	"testing"

	"golang.org/x/text/cases"
)

// TestFoldASCIIPath: Fold's ASCII shortcut folds exactly as the Unicode
// caser does, for every ASCII character and mixed with non-ASCII text.
func TestFoldASCIIPath(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 128; c++ {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{all.String(), "Acme IS Down", "already lower", "", "ÉCLAIR Acme", "Straße", "K (Kelvin) K", "ＡＣＭＥ"} {
		if got, want := Fold(s), cases.Fold().String(s); got != want {
			t.Errorf("Fold(%q) = %q, want %q", s, got, want)
		}
	}
}
