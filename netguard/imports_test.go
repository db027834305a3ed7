package netguard_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSiblingsDoNotImportDeliver: the collectors and the catalogue reach
// the URL guard and webhook signing through their own packages, not
// through deliver (the delivery worker), so neither depends on it.
func TestSiblingsDoNotImportDeliver(t *testing.T) {
	for _, pkg := range []string{"earshot/collect", "earshot/capability", "earshot/netguard", "earshot/webhooksig"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "earshot/deliver" {
				t.Errorf("%s depends on earshot/deliver", pkg)
			}
		}
	}
}
