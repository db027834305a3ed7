package ui

import "testing"

func TestPlainMessages(t *testing.T) {
	for _, tc := range []struct{ param, msg, want string }{
		{"min_urgency", "min_urgency must be at most 100", "Minimum urgency must be 100 or less."},
		{"url", "url: scheme must be https", "Endpoint URL must be a full web address starting with https://, like https://example.com/hook."},
		{"name", "name is required", "Name is required."},
		{"keywords[1]", "keywords[1] must be at most 200 characters", "Keywords (line 2) can be at most 200 characters long."},
		{"since", "since must be an ISO 8601 timestamp, e.g. 2026-09-02T10:00:00Z", "Published since must be a date like 2026-09-02, or a date and time like 2026-09-02T10:00:00Z."},
		{"filters.sentiment", "a spike alert takes filters.sentiment negative (negative spikes only) or none", "A spike alert can watch all spikes or negative spikes only: choose Negative or Any."},
		{"filters.category", "a spike alert takes only filters.monitor_id and filters.sentiment; filters.category applies to single mentions", "A spike alert can be limited only to a monitor and to negative spikes: set Category to Any."},
		{"status", "status must be one of new, reviewed, done, ignored", "Status: choose one of New, Reviewed, Done, Ignored."},
	} {
		if got := plainMessage(tc.param, tc.msg); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.msg, got, tc.want)
		}
	}
}
