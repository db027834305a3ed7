package collect

import (
	"regexp"
	"strings"

	"earshot/collect/wire"
)

// watch_accounts holds handles of every platform in one list (an X handle,
// a Reddit user, a LinkedIn organization URN). Each collector sends only
// the entries that can be an account on its platform; the rest would make
// queries such as "from:urn:li:organization:1" that match nothing or fail.
// Matching (match.go) still takes every entry: a post's author is compared
// with all of them.

var accountPatterns = map[string]*regexp.Regexp{
	"x":      regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`),                            // X: letters, digits, underscore, at most 15
	"reddit": regexp.MustCompile(`^[A-Za-z0-9_-]{3,20}$`),                           // Reddit: 3–20 letters, digits, - and _
	"hn":     regexp.MustCompile(`^[A-Za-z0-9_-]{2,15}$`),                           // HN: 2–15 letters, digits, - and _
	"devto":  regexp.MustCompile(`^[A-Za-z0-9_]{2,30}$`),                            // DEV: letters, digits and underscore
	"github": regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$`), // GitHub: 1–39 letters, digits and inner hyphens
	// Bluesky: a handle is a domain name (acme.bsky.social, acme.com); a DID is did:plc: or did:web:.
	"bluesky": regexp.MustCompile(`^(?:did:(?:plc|web):[A-Za-z0-9._:%-]{1,1000}|[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z][A-Za-z0-9-]{0,62})$`),
	// Mastodon: user@instance (written @user@instance); a bare name names no instance.
	"mastodon": regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$`),
}

// watchHandles returns the entries of watch that are valid account handles
// on source, normalised (no "@", no "u/") and without repeats; nil for a
// platform whose collector does not search by account. LinkedIn reads its
// own form, LinkedInOrganizations.
func watchHandles(source string, watch []string) []string {
	re := accountPatterns[source]
	if re == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range watch {
		h := wire.NormalizeHandle(w)
		key := strings.ToLower(h)
		if !re.MatchString(h) || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, h)
	}
	return out
}
