package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDecisionCitations: comments cite the decisions they follow as
// docs/decisions.md#<anchor>; every cited anchor must be a heading of that
// file, and no comment may cite a document that is not in the repository
// (the contract the decisions were first written in).
func TestDecisionCitations(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "decisions.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			anchors[strings.ReplaceAll(strings.ToLower(strings.TrimSpace(h)), " ", "-")] = true
		}
	}
	cite := regexp.MustCompile(`docs/decisions\.md#([a-z0-9-]+)`)
	outside := regexp.MustCompile(`CONTRACT §|CONTRACT:|PLATFORMS\.md|PLATFORMS §|the brief's`)
	cited := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".sql" || filepath.ToSlash(path) == "internal/cli/decisions_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllSubmatch(b, -1) {
			cited++
			if !anchors[string(m[1])] {
				t.Errorf("%s cites docs/decisions.md#%s, which has no such section", path, m[1])
			}
		}
		if m := outside.Find(b); m != nil {
			t.Errorf("%s cites %q, a document not in the repository; cite docs/decisions.md", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Fatal("no citation of docs/decisions.md found; is the walk reading the tree?")
	}
}
