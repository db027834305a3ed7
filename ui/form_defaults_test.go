package ui_test

import (
	"strings"
	"testing"
)

// The dashboard's forms start from the catalogue's defaults and offer its
// allowed values, never copies of them: a new monitor is set to the API's
// query mode, backfill and scan interval with every allowed backfill
// offered, a new alert to the urgent threshold, share of voice to its
// report's default window.
func TestFormsStartFromTheCatalogue(t *testing.T) {
	_, c := ownerClient(t, 0)
	for path, wants := range map[string][]string{
		"/monitors/new": {`<option value="24" selected>`, `<option value="4320"`, `name="scan_interval_minutes"`, `value="15"`, `value="any"`},
		"/alerts":       {`name="min_urgency" type="number" min="0" max="100" value="70"`, `<option value="mention" selected>`},
		"/groups":       {`<option value="last_30_days" selected>`},
	} {
		st, body, _ := c.get(path)
		if st != 200 {
			t.Fatalf("%s: %d", path, st)
		}
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %s", path, w)
			}
		}
	}
}
