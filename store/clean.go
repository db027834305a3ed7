package store

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// CleanText is s as both backends can store it: without NUL (U+0000),
// which PostgreSQL text refuses, and with invalid UTF-8 replaced by
// U+FFFD, which it refuses too. Collected posts go through it, so one
// post carrying a NUL is stored without it instead of failing its whole
// batch (and the source retrying the same window forever).
func CleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// WebURL is raw when it is an absolute http or https URL and "" otherwise:
// a mention's url is shown as a link and sent over REST, MCP and webhooks,
// so a javascript: or data: link a feed carries is dropped (the mention
// has no url) rather than handed to whoever renders it.
func WebURL(raw string) string {
	raw = CleanText(strings.TrimSpace(raw))
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return raw
	}
	return ""
}

// clean returns m with every string cleaned (CleanText) and its url and
// links restricted to web URLs (WebURL).
func (m NewMention) clean() NewMention {
	for _, p := range []*string{&m.Source, &m.ExternalID, &m.AuthorHandle, &m.Text, &m.Category, &m.Sentiment,
		&m.AISummary, &m.Classifier, &m.CategoryReason, &m.UrgencyReason, &m.RelevanceReason} {
		*p = CleanText(*p)
	}
	m.URL = WebURL(m.URL)
	var links []string
	for _, l := range m.Links {
		if w := WebURL(l); w != "" {
			links = append(links, w)
		}
	}
	m.Links = links
	if m.Engagement != nil {
		eng := make(map[string]int64, len(m.Engagement))
		for k, v := range m.Engagement {
			eng[CleanText(k)] = v
		}
		m.Engagement = eng
	}
	return m
}
