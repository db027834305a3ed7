package vocab

import (
	"slices"
	"testing"
)

func TestListsAreSetsAndLookupFindsThem(t *testing.T) {
	for name, list := range Lists {
		if len(list) == 0 {
			t.Errorf("%s is empty", name)
		}
		seen := map[string]bool{}
		for _, v := range list {
			if v == "" || seen[v] {
				t.Errorf("%s: value %q empty or repeated", name, v)
			}
			seen[v] = true
		}
		if got, ok := Lookup(name); !ok || !slices.Equal(got, list) {
			t.Errorf("Lookup(%s) = %v, %v", name, got, ok)
		}
	}
	if _, ok := Lookup("platforms"); ok {
		t.Error("Lookup found an unknown vocabulary")
	}
	if slices.Contains(BoundedDatePresets, AllTime) || len(BoundedDatePresets) != len(DatePresets)-1 || !slices.Contains(DatePresets, AllTime) {
		t.Errorf("bounded presets %v of %v", BoundedDatePresets, DatePresets)
	}
	if UrgentThreshold <= 0 || UrgentThreshold > 100 {
		t.Errorf("urgent threshold %d is not an urgency", UrgentThreshold)
	}
}
