package api

// Monitor is a keyword set watched across sources.
type Monitor struct {
	ID                  string         `json:"id"`
	ProjectID           string         `json:"project_id"`
	Name                string         `json:"name"`
	Keywords            []string       `json:"keywords"`
	ExcludeKeywords     []string       `json:"exclude_keywords"`
	QueryMode           string         `json:"query_mode"`
	WatchAccounts       []string       `json:"watch_accounts"`
	FeedURLs            []string       `json:"feed_urls"`
	ReviewURLs          []string       `json:"review_urls"`
	Sources             []string       `json:"sources"`
	GroupName           string         `json:"group_name"`
	GroupID             *string        `json:"group_id"`
	Active              bool           `json:"active"`
	ScanIntervalMinutes int            `json:"scan_interval_minutes"`
	BackfillHours       int            `json:"backfill_hours"`
	LastScannedAt       *string        `json:"last_scanned_at"`
	CreatedAt           string         `json:"created_at"`
	UpdatedAt           string         `json:"updated_at"`
	SourceStatus        []SourceStatus `json:"source_status"`
}

// SourceStatus is the health of one source of one monitor.
type SourceStatus struct {
	Source           string       `json:"source"`
	Status           string       `json:"status"`
	Detail           string       `json:"detail,omitempty"`
	LastError        string       `json:"last_error,omitempty"`
	FailingSince     *string      `json:"failing_since,omitempty"`
	RateLimitedUntil *string      `json:"rate_limited_until,omitempty"`
	LastOKAt         *string      `json:"last_ok_at,omitempty"`
	LastPostAt       *string      `json:"last_post_at,omitempty"`
	QuotaDropped     int          `json:"quota_dropped,omitempty" doc:"New posts of this source dropped this month because the project's mention quota was used up (status quota_reached while they still are)."`
	LastScan         *ScanSummary `json:"last_scan,omitempty" doc:"What the latest scan of this source read, stored and skipped (with the reason of each skip)."`
}

// ScanSummary is what one scan of a source read from the platform, stored
// and skipped: no scan stores nothing silently.
type ScanSummary struct {
	Read        int            `json:"read" doc:"Posts the platform returned."`
	Stored      int            `json:"stored" doc:"New mentions stored."`
	Skipped     int            `json:"skipped" doc:"Posts not stored, for any reason."`
	SkipReasons map[string]int `json:"skip_reasons,omitempty" doc:"Posts skipped per reason, e.g. {\"no date\": 50, \"already stored\": 3, \"no keyword match\": 2}."`
	Notes       map[string]int `json:"notes,omitempty" doc:"Stored posts with a caveat, per caveat, e.g. {\"dated by the feed's update time (the review has none)\": 50}."`
	Summary     string         `json:"summary" doc:"One line: read 50, stored 0, skipped 50: no date."`
}

// KeywordGroup is a labelled pile of monitors' keywords.
type KeywordGroup struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	IsOwn     bool   `json:"is_own"`
	CreatedAt string `json:"created_at"`
}
