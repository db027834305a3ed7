package replay

import (
	"testing"
	"time"
)

func TestShiftTimestampsKeepsLayouts(t *testing.T) {
	in := `{"timestamp":"2024-05-03T17:42:03+0000","updated":{"label":"2024-05-03T07:49:30-07:00"},` +
		`"createdAt":"2024-05-03T11:20:31.000Z","createdAt":1714748400000,"seendate":"20240503T141500Z",` +
		`"datePublished":"2024-05-03","created_utc":1714564800.0}<pubDate>Fri, 03 May 2024 14:15:07 GMT</pubDate>` +
		`<pubDate>Thu, 2 May 2024 09:05:00 +0000</pubDate>`
	want := `{"timestamp":"2024-05-04T19:42:03+0000","updated":{"label":"2024-05-04T09:49:30-07:00"},` +
		`"createdAt":"2024-05-04T13:20:31.000Z","createdAt":1714842000000,"seendate":"20240504T161500Z",` +
		`"datePublished":"2024-05-04","created_utc":1714658400.0}<pubDate>Sat, 04 May 2024 16:15:07 GMT</pubDate>` +
		`<pubDate>Fri, 03 May 2024 11:05:00 +0000</pubDate>`
	got := string(shiftTimestamps([]byte(in), 26*time.Hour))
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
