// Package story holds what decides that two mentions tell the same story:
// canonical links (the same article behind different URLs) and text
// fingerprints (near-duplicate text in any language, by MinHash over
// character shingles). Everything here is a pure function of its input,
// with fixed hash seeds, so grouping is deterministic; the store keeps the
// index and the stories.
package story

import (
	"net/url"
	"slices"
	"strings"
)

// trackingParams are query parameters that say who shared a link or from
// where, not which page it is. Keys are matched lower-cased; any utm_*
// parameter is dropped too.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "msclkid": true, "yclid": true, "twclid": true, "ttclid": true,
	"igshid": true, "igsh": true, "mc_cid": true, "mc_eid": true, "_hsenc": true, "_hsmi": true, "mkt_tok": true, "oly_enc_id": true,
	"oly_anon_id": true, "vero_id": true, "wickedid": true, "ref": true, "ref_src": true, "ref_url": true, "referrer": true,
	"cmpid": true, "spm": true, "share": true, "share_id": true, "si": true, "feature": true, "amp": true, "__twitter_impression": true,
	"rss": true,
}

// shareParams are dropped on the hosts that add them to a shared link
// (on other sites s or t may name the page or a time in a video).
var shareParams = map[string][]string{
	"x.com":      {"s", "t"},
	"reddit.com": {"context", "share_id", "utm_name"},
}

// hostAliases maps alternative hosts of a site to one.
var hostAliases = map[string]string{
	"twitter.com": "x.com", "mobile.twitter.com": "x.com", "mobile.x.com": "x.com",
	"old.reddit.com": "reddit.com", "new.reddit.com": "reddit.com", "np.reddit.com": "reddit.com", "amp.reddit.com": "reddit.com",
	"music.youtube.com": "youtube.com",
}

// profileHosts are sites where a one-segment path is an account or a
// community, not an article: a link to it is shared by many unrelated posts.
var profileHosts = map[string]bool{
	"x.com": true, "instagram.com": true, "facebook.com": true, "tiktok.com": true, "threads.net": true, "threads.com": true,
	"linkedin.com": true, "youtube.com": true, "github.com": true, "bsky.app": true, "mastodon.social": true, "medium.com": true,
	"reddit.com": true, "t.me": true, "discord.gg": true, "twitch.tv": true,
}

// Canonical returns the canonical form of a link for grouping, and false
// when the link cannot tell a story: not http(s), no host, a site's home
// page, or a profile, channel or community page. The form has no scheme
// (http and https are the same page), a lower-case host without www./m.,
// no default port, no fragment, no trailing slash, no tracking parameters
// and the others sorted. A few sites get their post URLs reduced to the
// id (x.com/{anyone}/status/ID, reddit.com/r/{sub}/comments/ID/{slug},
// youtu.be/ID), since the same post is linked in several spellings.
func Canonical(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	lower := strings.ToLower(raw)
	if strings.HasPrefix(lower, "www.") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(host, ".")
	for _, p := range []string{"www.", "m.", "mobile."} {
		if strings.HasPrefix(host, p) && strings.Count(host, ".") >= 2 {
			host = strings.TrimPrefix(host, p)
			break
		}
	}
	if a, ok := hostAliases[host]; ok {
		host = a
	}
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		host += ":" + port
	}
	path := u.EscapedPath()
	path = strings.TrimRight(path, "/")
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || trackingParams[lk] {
			q.Del(k)
		}
	}
	for _, k := range shareParams[host] {
		q.Del(k)
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if path == "" {
		segs = nil
	}
	switch host {
	case "youtu.be":
		if len(segs) == 1 {
			host, path = "youtube.com", "/watch"
			q.Set("v", segs[0])
			segs = []string{"watch"}
		}
	case "youtube.com":
		if len(segs) == 2 && segs[0] == "shorts" {
			path = "/watch"
			q.Set("v", segs[1])
			segs = []string{"watch"}
		}
		if path == "/watch" {
			v := q.Get("v")
			q = url.Values{}
			if v != "" {
				q.Set("v", v)
			}
		}
	case "x.com":
		// x.com/{anyone}/status/ID, x.com/i/web/status/ID, …/status/ID/photo/1
		for i := 1; i+1 < len(segs); i++ {
			if segs[i] == "status" {
				path, segs = "/i/status/"+segs[i+1], []string{"i", "status", segs[i+1]}
				break
			}
		}
	case "reddit.com":
		// /r/{sub}/comments/ID/{slug}/[COMMENT]: the post, or one comment
		// of it (a comment is not its thread).
		var c []string
		if len(segs) >= 4 && segs[0] == "r" && segs[2] == "comments" {
			c = segs[3:]
		} else if len(segs) >= 2 && segs[0] == "comments" {
			c = segs[1:]
		}
		if len(c) > 0 {
			segs = []string{"comments", c[0]}
			if len(c) >= 3 && c[2] != "" {
				segs = append(segs, c[2])
			}
			path = "/" + strings.Join(segs, "/")
		}
	case "apps.apple.com":
		// An App Store review's address is its app's page with the
		// review's id as fragment: keep it.
		if u.Fragment != "" && q.Has("see-all") {
			q.Set("review", u.Fragment)
		}
	}
	if len(q) == 0 && len(segs) == 0 {
		return "", false // a home page
	}
	if profileHosts[host] && profilePath(host, segs) {
		return "", false
	}
	out := host + path
	if len(q) > 0 {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		for i, k := range keys {
			vs := slices.Clone(q[k])
			slices.Sort(vs)
			for j, v := range vs {
				if i > 0 || j > 0 {
					b.WriteByte('&')
				}
				b.WriteString(url.QueryEscape(k))
				b.WriteByte('=')
				b.WriteString(url.QueryEscape(v))
			}
		}
		out += "?" + b.String()
	}
	return out, true
}

// profilePath reports whether segs name an account, channel or community
// on a social host (x.com/acme, reddit.com/r/acme, youtube.com/@acme).
func profilePath(host string, segs []string) bool {
	switch {
	case len(segs) == 1:
		return !(host == "youtube.com" && segs[0] == "watch")
	case len(segs) == 2 && host == "reddit.com" && (segs[0] == "r" || segs[0] == "u" || segs[0] == "user"):
		return true
	case len(segs) == 2 && host == "youtube.com" && (segs[0] == "c" || segs[0] == "channel" || segs[0] == "user"):
		return true
	case len(segs) == 2 && host == "linkedin.com" && (segs[0] == "company" || segs[0] == "in"):
		return true
	case len(segs) == 2 && host == "bsky.app" && segs[0] == "profile":
		return true
	}
	return false
}

// Links returns the http(s) links written in text (and bare www. ones), in
// order of appearance, without the punctuation that usually follows a
// link in prose.
func Links(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := indexLinkStart(text[i:])
		if j < 0 {
			break
		}
		start := i + j
		end := start
		for end < len(text) && !isLinkStop(text[end]) {
			end++
		}
		link := strings.TrimRight(text[start:end], ".,;:!?)]}'\"…")
		if len(link) > len("https://") {
			out = append(out, link)
		}
		i = max(end, start+1)
	}
	return out
}

// indexLinkStart finds the next http://, https:// or (at a word start)
// www., ASCII case-insensitively, in one pass.
func indexLinkStart(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'h':
			if hasPrefixFold(s[i:], "https://") || hasPrefixFold(s[i:], "http://") {
				return i
			}
		case 'w':
			if (i == 0 || isLinkStop(s[i-1])) && hasPrefixFold(s[i:], "www.") {
				return i
			}
		}
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isLinkStop(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '<' || c == '>' || c == '"' || c == '`' || c == '|'
}

// MentionLinks returns the canonical links of a mention: its own URL, the
// pages the platform says it links to (extra) and the links in its text,
// each once, in that order.
func MentionLinks(ownURL, text string, extra ...string) []string {
	var out []string
	add := func(raw string) {
		if c, ok := Canonical(raw); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	add(ownURL)
	for _, l := range extra {
		add(l)
	}
	for _, l := range Links(text) {
		add(l)
	}
	return out
}
