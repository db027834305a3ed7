package api

import "time"

// TimeFormat is how every public record writes a time: UTC, fixed width,
// milliseconds (the store keeps timestamps in the same form).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime writes t as public records do.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime reads a time written by FormatTime.
func ParseTime(s string) (time.Time, error) { return time.Parse(TimeFormat, s) }
