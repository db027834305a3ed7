package cli

import (
	"os"
	"testing"
)

// TestMain runs the package's tests from the repository's root, where
// they ran when the commands were the root package: the repository-wide
// checks (README, docs/decisions.md citations, scripts/test-all.sh, the
// environment rule) read paths relative to it.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
