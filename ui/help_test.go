package ui

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHelpListsREADMEShortcuts: the help overlay (?) lists every keyboard
// shortcut the README's Dashboard section names, so neither drifts.
func TestHelpListsREADMEShortcuts(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(readme)
	start := strings.Index(doc, "\n## Dashboard")
	if start < 0 {
		t.Fatal("README has no Dashboard section")
	}
	doc = doc[start+1:]
	if end := strings.Index(doc[3:], "\n## "); end >= 0 {
		doc = doc[:end+3]
	}
	var want []string
	for _, m := range regexp.MustCompile("`(g [a-z]|[a-z?/]|Enter|Esc)`").FindAllStringSubmatch(doc, -1) {
		if !slices.Contains(want, m[1]) {
			want = append(want, m[1])
		}
	}
	if len(want) < 15 {
		t.Fatalf("found only %d shortcuts in the README (%v): the parse is wrong", len(want), want)
	}
	layout, err := os.ReadFile("templates/_layout.html")
	if err != nil {
		t.Fatal(err)
	}
	dialog := string(layout)
	dialog = dialog[strings.Index(dialog, `<dialog id="help"`):]
	dialog = dialog[:strings.Index(dialog, "</dialog>")]
	var have []string
	for _, dt := range regexp.MustCompile(`<dt>(.*?)</dt>`).FindAllStringSubmatch(dialog, -1) {
		keys := regexp.MustCompile(`<kbd>(.*?)</kbd>`).FindAllStringSubmatch(dt[1], -1)
		if strings.Contains(dt[1], " then ") && len(keys) == 2 {
			have = append(have, keys[0][1]+" "+keys[1][1])
			continue
		}
		for _, k := range keys {
			have = append(have, k[1])
		}
	}
	for _, k := range want {
		if !slices.Contains(have, k) {
			t.Errorf("the README names the shortcut %q, the help overlay does not (it lists %v)", k, have)
		}
	}
}
