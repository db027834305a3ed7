package wire

import (
	"net/url"
	"strings"
)

// GooglePlayUnsupported says what a Google Play URL in review_urls gets
// instead of reviews. Play has no public reviews API: the Play Developer
// API's reviews.list needs the app owner's own service account, and the
// store page carries a rating summary and no review, so reading it as a
// schema.org page stored 0 reviews with status ok forever (issue 27).
const GooglePlayUnsupported = "Google Play has no public reviews API (the Play Developer API's reviews.list needs the app owner's service account), " +
	"so Play pages are not read; review_urls supports App Store app pages (apps.apple.com), Trustpilot pages (trustpilot.com/review/…) " +
	"and any page carrying schema.org Review markup"

// IsGooglePlayURL reports whether raw is a Google Play page.
func IsGooglePlayURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "play.google.com" || host == "market.android.com"
}
