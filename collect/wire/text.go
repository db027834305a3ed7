// Package wire reads what platforms send, for the collectors and for the
// demo replay server that plays the platforms: HTML to plain text, handles
// with or without "@", timestamps in a dozen layouts, numeric ids. Post
// wants plain text, bare handles and UTC times.
package wire

import (
	"html"
	"regexp"
	"strings"
	"unicode"
)

var (
	// Elements whose content is never visible text.
	reInvisible = regexp.MustCompile(`(?is)<(script|style|noscript|template|head)\b[^>]*>.*?</(script|style|noscript|template|head)\s*>`)
	reComment   = regexp.MustCompile(`(?s)<!--.*?-->`)
	reCDATA     = regexp.MustCompile(`(?s)<!\[CDATA\[(.*?)\]\]>`)
	// Tags that end a paragraph or a line. Only real tags match (a letter
	// after "<" or "</"), so "a < b" in plain text survives.
	reParaTag = regexp.MustCompile(`(?i)</?(p|div|blockquote|pre|h[1-6]|ul|ol|table|section|article|header|footer)\b[^>]*>`)
	reLineTag = regexp.MustCompile(`(?i)<(br|hr|li|tr|dt|dd)\b[^>]*>`)
	reAnyTag  = regexp.MustCompile(`</?[a-zA-Z][^>]*>|<![a-zA-Z][^>]*>|<\?[^>]*\?>`)
)

// PlainText turns an HTML fragment (or text carrying HTML entities) into
// plain text: script/style content dropped, tags stripped, entities
// unescaped, runs of white space collapsed. Paragraph-level elements become a
// blank line and <br>/<li> a line break, so the text keeps its shape.
func PlainText(s string) string {
	if s == "" {
		return ""
	}
	if strings.ContainsAny(s, "<") {
		s = reCDATA.ReplaceAllString(s, "$1")
		s = reComment.ReplaceAllString(s, "")
		s = reInvisible.ReplaceAllString(s, "")
		s = reParaTag.ReplaceAllString(s, "\n\n")
		s = reLineTag.ReplaceAllString(s, "\n")
		s = reAnyTag.ReplaceAllString(s, "")
	}
	// Feeds sometimes escape twice ("&amp;amp;"): one more pass when the first
	// left an entity behind is what readers do too.
	s = html.UnescapeString(s)
	if strings.Contains(s, "&") && strings.Contains(s, ";") {
		if t := html.UnescapeString(s); t != s && !strings.ContainsAny(t, "<>") {
			s = t
		}
	}
	return collapseSpace(s)
}

// UnescapeText is for fields that are plain text, which a platform may
// still entity-escape (YouTube snippets, X's &amp; &lt; &gt;, recorded
// Reddit and Threads answers): entities are unescaped once and nothing else
// changes. Never run plain text through PlainText: "wrap it in
// <AcmeProvider>" or "if a<b and c>d" there are words, not tags.
func UnescapeText(s string) string {
	return strings.TrimSpace(html.UnescapeString(s))
}

// collapseSpace collapses spaces within lines, trims every line and keeps at
// most one blank line between paragraphs.
func collapseSpace(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	var b strings.Builder
	blank := 0
	for _, line := range lines {
		line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}

// NormalizeHandle returns a handle as Post stores it: trimmed, without the
// leading "@" (or "u/" for Reddit-style handles written with it).
func NormalizeHandle(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimLeft(h, "@")
	if strings.HasPrefix(h, "/u/") || strings.HasPrefix(h, "u/") {
		h = h[strings.Index(h, "u/")+2:]
	}
	return strings.TrimSpace(h)
}

// UnwrapCDATA replaces every CDATA section of s with its content.
func UnwrapCDATA(s string) string {
	return reCDATA.ReplaceAllString(s, "$1")
}
