package capability

import (
	"strings"
	"time"
	// The zone database is compiled in: the binary runs in minimal
	// containers without /usr/share/zoneinfo, and a user's time zone must
	// load there too.
	_ "time/tzdata"
)

// CheckTimeZone validates an IANA time zone name for a user's setting:
// "" and "UTC" are UTC (stored as ""); "Local" is refused, it would mean
// the server's zone.
func CheckTimeZone(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "UTC" {
		return "", nil
	}
	if name == "Local" {
		return "", Invalid("time_zone", "give an IANA time zone name such as Europe/Paris")
	}
	if _, err := time.LoadLocation(name); err != nil {
		return "", Invalid("time_zone", "%q is not an IANA time zone name (such as Europe/Paris or America/New_York)", name)
	}
	return name, nil
}
