package ui

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// The dashboard can live under a path (--base-url
// https://example.com/earshot/). Its handlers and templates think in the
// application's own paths ("/monitors", "/a/create_monitor"), the paths the
// server routes once it has taken the base path off a request; the base
// path is put on where an address leaves for the browser: the links of the
// HTML (PrefixLinks), redirects (redirect), the cookies' Path, and the
// script, which reads it from its own address.

// linkAttr is an attribute holding a site-absolute address: href, action,
// src and data-src (the overview's fragment) starting with one slash.
// html/template escapes the quotes of any text, so only attributes match.
var linkAttr = regexp.MustCompile(`\s(?:href|action|src|data-src|formaction)="/(?:[^/"]|")`)

// PrefixLinks puts base ("/earshot"; "" does nothing) in front of every
// site-absolute link of a rendered page. Values of other attributes (a
// hidden "next" or "_back" field) stay application paths: they come back
// to the server, which routes without the base path.
func PrefixLinks(base string, html []byte) []byte {
	if base == "" {
		return html
	}
	return linkAttr.ReplaceAllFunc(html, func(m []byte) []byte {
		i := strings.IndexByte(string(m), '"') + 1 // the value's slash
		out := make([]byte, 0, len(m)+len(base))
		out = append(out, m[:i]...)
		out = append(out, base...)
		return append(out, m[i:]...)
	})
}

// basePath is the path of a base URL without its trailing slash ("" at the
// root).
func basePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.Path, "/")
}

// redirect sends the browser to an application path (under the base path).
func (u *UI) redirect(w http.ResponseWriter, r *http.Request, path string) {
	if strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "//") {
		path = u.base + path
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// secureRequest reports whether the browser reached us over HTTPS: the base
// URL is https, the connection is TLS, or a trusted proxy said so
// (X-Forwarded-Proto, which the server puts in URL.Scheme).
func (u *UI) secureRequest(r *http.Request) bool {
	return u.secure || (r != nil && (r.TLS != nil || r.URL.Scheme == "https"))
}
