package classify

import (
	"net/url"
	"strings"
)

// Own posts. A post by one of the project's own accounts, or published on
// the project's own website (its blog or newsroom, read through a feed),
// is the brand speaking, not a mention to triage. It is decided from who
// posted and where, not from the text, so it holds whichever classifier
// judged the text; the pipeline stores such a post with own=true and
// is_relevant=false.

// Owner identifies a project's own posts. The zero value owns nothing.
type Owner struct {
	handles map[string]string // normalised handle -> as configured
	domains []string          // lower-case hosts without "www."
}

// NewOwner returns the owner of handles (the watch_accounts of the
// project's own-brand monitors: X or Reddit handles, LinkedIn organization
// URNs, channel names; "@" and "u/" are ignored, case too) and domains
// (the project's website and the domains it names as its own; a URL or a
// bare host, subdomains included).
func NewOwner(handles, domains []string) Owner {
	o := Owner{handles: map[string]string{}}
	for _, h := range handles {
		if n := normalizeHandle(h); n != "" {
			if _, ok := o.handles[n]; !ok {
				o.handles[n] = strings.TrimSpace(h)
			}
		}
	}
	for _, d := range domains {
		if host := hostOf(d); host != "" && strings.Contains(host, ".") {
			o.domains = append(o.domains, host)
		}
	}
	return o
}

// Empty reports whether o owns nothing.
func (o Owner) Empty() bool { return len(o.handles) == 0 && len(o.domains) == 0 }

// OwnPost reports whether a post from source by authorHandle, at postURL,
// is the project's own, with a short reason ("own post: ...").
func (o Owner) OwnPost(source, authorHandle, postURL string) (bool, string) {
	if h := normalizeHandle(authorHandle); h != "" {
		if _, ok := o.handles[h]; ok {
			return true, "own post: by " + displayHandle(authorHandle) + ", the project's own account"
		}
		// News feeds name the publisher's site as the author.
		if d := o.ownDomain(hostOf(authorHandle)); d != "" && strings.Contains(authorHandle, ".") && !strings.Contains(authorHandle, " ") {
			return true, "own post: published by " + d + ", the project's website"
		}
	}
	// On a platform the link is the platform's; on the news source it is
	// the publisher's page, so a link to the brand's own site is the brand
	// publishing (its blog, its newsroom).
	if source == "news" {
		if d := o.ownDomain(hostOf(postURL)); d != "" {
			return true, "own post: published on " + d + ", the project's website"
		}
	}
	return false, ""
}

// ownDomain returns the own domain host is, or is a subdomain of.
func (o Owner) ownDomain(host string) string {
	if host == "" {
		return ""
	}
	for _, d := range o.domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return d
		}
	}
	return ""
}

func normalizeHandle(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimPrefix(h, "@")
	if i := strings.Index(h, "u/"); i >= 0 && i <= 1 && (i == 0 || h[0] == '/') {
		h = h[i+2:]
	}
	return strings.ToLower(strings.TrimSpace(h))
}

// displayHandle writes a handle as people read it: @name for a plain
// handle, as given otherwise (a URN, a channel name with spaces).
func displayHandle(h string) string {
	h = strings.TrimSpace(h)
	if id, ok := strings.CutPrefix(h, "urn:li:organization:"); ok {
		return "LinkedIn organization " + id
	}
	if strings.HasPrefix(h, "@") || strings.ContainsAny(h, ": /") {
		return h
	}
	return "@" + h
}

// hostOf returns the lower-case host of a URL or bare host, without
// "www." and a port; "" when s is neither.
func hostOf(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return ""
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// IsDomain reports whether a keyword is a bare domain ("acme.example"),
// which a project may name as its own.
func IsDomain(k string) bool {
	k = strings.TrimSpace(k)
	if k == "" || strings.ContainsAny(k, " @#/:") {
		return false
	}
	dot := strings.LastIndexByte(k, '.')
	if dot <= 0 || dot == len(k)-1 {
		return false
	}
	for _, r := range k[dot+1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
