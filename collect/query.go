package collect

import "strings"

// Helpers the collectors share to turn a monitor's keywords into platform
// queries.

// queryKeywords returns a monitor's keywords trimmed, with every character
// of drop removed first (e.g. `"` where the platform's syntax quotes
// phrases), and empty ones left out.
func queryKeywords(keywords []string, drop string) []string {
	var out []string
	for _, k := range keywords {
		for _, c := range drop {
			k = strings.ReplaceAll(k, string(c), "")
		}
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// searchTerms turns a monitor's keywords into the full-text queries of a
// search without OR (Bluesky, Mastodon): one per keyword ("any"), every
// keyword in one query ("all", terms are AND'ed), or one quoted phrase
// ("phrase"); a keyword of several words is quoted. Matching proper
// happens after collection.
func searchTerms(q Query) []string {
	kws := queryKeywords(q.Keywords, `"`)
	if len(kws) == 0 {
		return nil
	}
	if q.QueryMode == "phrase" {
		return []string{`"` + strings.Join(kws, " ") + `"`}
	}
	for i, k := range kws {
		if strings.ContainsAny(k, " \t") {
			kws[i] = `"` + k + `"`
		}
	}
	if q.QueryMode == "all" {
		return []string{strings.Join(kws, " ")}
	}
	return kws
}
