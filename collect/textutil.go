package collect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Helpers every collector shares: platforms hand us HTML, handles with or
// without "@", and a dozen time layouts; Post wants plain text, bare handles
// and UTC times.

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

// Time layouts seen across the platforms (PLATFORMS.md cheat sheet), tried in
// order by ParseTimestamp.
var timeLayouts = []string{
	time.RFC3339Nano,                  // YouTube, X, Bluesky, Apple, Atom, Trustpilot
	"2006-01-02T15:04:05-0700",        // Threads (offset without colon)
	"2006-01-02T15:04:05.999999-0700", // Threads-like with fraction
	time.RFC1123,                      // Google News pubDate ("GMT")
	time.RFC1123Z,                     // RSS with numeric offset
	"Mon, 2 Jan 2006 15:04:05 MST",    // RSS with one-digit day
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 02 Jan 2006 15:04 MST", // RSS without seconds
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 MST", // RSS without weekday
	"2 Jan 2006 15:04:05 -0700",
	time.RFC822,
	time.RFC822Z,
	time.RFC850,
	time.ANSIC,
	"20060102T150405Z",          // GDELT seendate
	"2006-01-02T15:04:05",       // no zone: taken as UTC
	"2006-01-02 15:04:05",       // no zone: taken as UTC
	"2006-01-02 15:04:05 -0700", // SQL-ish dumps
	"2006-01-02",                // schema.org datePublished
}

var usZones = map[string]string{
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// ParseTimestamp parses a platform date in any layout of timeLayouts and
// returns it in UTC. A date without a time is midnight UTC.
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty timestamp")
	}
	// Go reads unknown zone abbreviations as UTC; RSS dates still use the
	// US ones, so spell those out as offsets first.
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		if off, ok := usZones[s[i+1:]]; ok {
			s = s[:i+1] + off
		}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	// "UT" and "Z" zone names in RSS dates.
	if strings.HasSuffix(s, " UT") || strings.HasSuffix(s, " Z") {
		return ParseTimestamp(s[:strings.LastIndexByte(s, ' ')] + " GMT")
	}
	return time.Time{}, fmt.Errorf("unrecognised timestamp %q", s)
}

// IsDateOnly reports whether s is a calendar date with no time of day
// ("2024-05-01"), which callers compare by day rather than by instant.
func IsDateOnly(s string) bool {
	_, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	return err == nil
}

// UnixTime converts Unix seconds (Reddit sends a float) to a UTC time.
func UnixTime(sec float64) time.Time {
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}

// UnixMilliTime converts Unix milliseconds (LinkedIn) to a UTC time.
func UnixMilliTime(ms int64) time.Time {
	return time.UnixMilli(ms).UTC()
}

// contentID is a stable id for items that carry none (reviews on a page):
// a short hash of the parts that identify them.
func contentID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// joinText joins a title and a body the way every collector shows them: a
// blank line between, either part may be empty, and a body that merely
// repeats the title is dropped.
func joinText(title, body string) string {
	title, body = strings.TrimSpace(title), strings.TrimSpace(body)
	switch {
	case title == "":
		return body
	case body == "" || body == title:
		return title
	case strings.HasPrefix(body, title+"\n"):
		return body
	}
	return title + "\n\n" + body
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimRight(strings.TrimSpace(v), "/")
}

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
