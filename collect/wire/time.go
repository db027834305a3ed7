package wire

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Time layouts seen across the platforms, each noted with who sends it,
// tried in order by ParseTimestamp.
var timeLayouts = []string{
	time.RFC3339Nano,                  // YouTube, X, Bluesky, Apple, Atom, Trustpilot
	"2006-01-02T15:04:05-0700",        // Threads (offset without colon)
	"2006-01-02T15:04:05.999999-0700", // Threads-like with fraction
	time.RFC1123,                      // Google News pubDate ("GMT")
	time.RFC1123Z,                     // RSS with numeric offset
	"Mon, 2 Jan 2006 15:04:05 MST",    // RSS with one-digit day
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 02 Jan 2006 15:04 MST", // RSS without seconds
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 MST", // RSS without weekday
	"2 Jan 2006 15:04:05 -0700",
	time.RFC822,
	time.RFC822Z,
	time.RFC850,
	time.ANSIC,
	"20060102T150405Z",          // GDELT seendate
	"2006-01-02T15:04:05",       // no zone: taken as UTC
	"2006-01-02 15:04:05",       // no zone: taken as UTC
	"2006-01-02 15:04:05 -0700", // SQL-ish dumps
	"2006-01-02",                // schema.org datePublished
}

var usZones = map[string]string{
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// ParseTimestamp parses a platform date in any layout of timeLayouts and
// returns it in UTC. A date without a time is midnight UTC.
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty timestamp")
	}
	// Go reads unknown zone abbreviations as UTC; RSS dates still use the
	// US ones, so spell those out as offsets first.
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		if off, ok := usZones[s[i+1:]]; ok {
			s = s[:i+1] + off
		}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	// "UT" and "Z" zone names in RSS dates.
	if strings.HasSuffix(s, " UT") || strings.HasSuffix(s, " Z") {
		return ParseTimestamp(s[:strings.LastIndexByte(s, ' ')] + " GMT")
	}
	return time.Time{}, fmt.Errorf("unrecognised timestamp %q", s)
}

// IsDateOnly reports whether s is a calendar date with no time of day
// ("2024-05-01"), which callers compare by day rather than by instant.
func IsDateOnly(s string) bool {
	_, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	return err == nil
}

// UnixTime converts Unix seconds (Reddit sends a float) to a UTC time.
func UnixTime(sec float64) time.Time {
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}

// UnixMilliTime converts Unix milliseconds (LinkedIn) to a UTC time.
func UnixMilliTime(ms int64) time.Time {
	return time.UnixMilli(ms).UTC()
}
