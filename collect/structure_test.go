package collect

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 27 point 4: production collectors do not know the demo (it passes
// its replay URLs and login in through DemoConfig), and the catalogue
// shares the keyword rule through package match instead of importing
// collect.
func TestPackageBoundaries(t *testing.T) {
	for _, c := range []struct{ dir, forbidden string }{
		{".", "earshot/internal/replay"},
		{"../capability", "earshot/collect"},
		{"../match", "earshot/collect"},
	} {
		files, err := filepath.Glob(filepath.Join(c.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", c.dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == c.forbidden {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}
