package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// AlertMention is what an alert says about one mention. The caller fills it
// from the stored mention, its monitor and project.
type AlertMention struct {
	Source       string // e.g. "reddit"
	AuthorHandle string
	URL          string // the original post
	Text         string
	Summary      string // ai_summary
	Category     string
	Sentiment    string
	Urgency      int // 0-100
	PublishedAt  time.Time
	MonitorName  string
	ProjectName  string
	DashboardURL string // the mention in Earshot's dashboard
}

// excerptRunes bounds the post text quoted in an alert; the link has the rest.
const excerptRunes = 300

// EmailText formats an alert email for one mention or, for hourly and daily
// digests, several. The subject is plain text; SendEmail encodes it.
func EmailText(alertName string, ms []AlertMention) (subject, body string) {
	var b strings.Builder
	switch len(ms) {
	case 0:
		subject = fmt.Sprintf("[Earshot] %s: no new mentions", alertName)
		fmt.Fprintf(&b, "No new mentions matched the alert %q.\n", alertName)
	case 1:
		m := ms[0]
		subject = fmt.Sprintf("[Earshot] %s: new mention on %s", alertName, orDash(m.Source))
		if m.AuthorHandle != "" {
			subject += " by " + m.AuthorHandle
		}
		fmt.Fprintf(&b, "1 new mention matched the alert %q%s.\n", alertName, inProject(m.ProjectName))
	default:
		subject = fmt.Sprintf("[Earshot] %s: %d new mentions", alertName, len(ms))
		fmt.Fprintf(&b, "%d new mentions matched the alert %q%s.\n", len(ms), alertName, inProject(ms[0].ProjectName))
	}
	for i, m := range ms {
		b.WriteString("\n")
		writeMention(&b, i+1, m)
	}
	fmt.Fprintf(&b, "\n-- \nSent by Earshot because the alert %q is active.\n", alertName)
	return oneLine(subject), b.String()
}

func inProject(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" in project %q", name)
}

// writeMention writes one numbered, indented block of an alert email.
func writeMention(b *strings.Builder, n int, m AlertMention) {
	const indent = "   "
	head := []string{orDash(m.Source)}
	if m.AuthorHandle != "" {
		head = append(head, m.AuthorHandle)
	}
	if !m.PublishedAt.IsZero() {
		head = append(head, m.PublishedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	fmt.Fprintf(b, "%d. %s\n", n, strings.Join(head, " · "))
	fmt.Fprintf(b, "%s%s\n", indent, strings.Join(classification(m), " · "))
	if m.MonitorName != "" {
		fmt.Fprintf(b, "%sMonitor: %s\n", indent, oneLine(m.MonitorName))
	}
	if m.Summary != "" {
		fmt.Fprintf(b, "%sSummary: %s\n", indent, oneLine(m.Summary))
	}
	if t := excerpt(m.Text); t != "" {
		for _, line := range wrap(t, 68) {
			fmt.Fprintf(b, "%s> %s\n", indent, line)
		}
	}
	if m.URL != "" {
		fmt.Fprintf(b, "%sPost: %s\n", indent, m.URL)
	}
	if m.DashboardURL != "" {
		fmt.Fprintf(b, "%sIn Earshot: %s\n", indent, m.DashboardURL)
	}
}

// classification is "Urgency 82/100", sentiment and category, skipping
// what is unknown.
func classification(m AlertMention) []string {
	parts := []string{"Urgency " + strconv.Itoa(m.Urgency) + "/100"}
	if m.Sentiment != "" {
		parts = append(parts, m.Sentiment)
	}
	if m.Category != "" {
		parts = append(parts, strings.ReplaceAll(m.Category, "_", " "))
	}
	return parts
}

// SlackMessage is the body for a Slack incoming webhook: {"text": ...} with
// a compact mrkdwn block for one mention.
func SlackMessage(m AlertMention) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*New mention on %s*", slackEscape(orDash(m.Source)))
	if m.AuthorHandle != "" {
		fmt.Fprintf(&b, " by %s", slackEscape(m.AuthorHandle))
	}
	if where := strings.Join(nonEmpty(m.ProjectName, m.MonitorName), " / "); where != "" {
		fmt.Fprintf(&b, " · %s", slackEscape(where))
	}
	fmt.Fprintf(&b, "\n%s", slackEscape(strings.Join(classification(m), " · ")))
	if m.Summary != "" {
		fmt.Fprintf(&b, "\n>%s", slackEscape(oneLine(m.Summary)))
	} else if t := excerpt(m.Text); t != "" {
		fmt.Fprintf(&b, "\n>%s", slackEscape(t))
	}
	var links []string
	if m.URL != "" {
		links = append(links, slackLink(m.URL, "Open post"))
	}
	if m.DashboardURL != "" {
		links = append(links, slackLink(m.DashboardURL, "Open in Earshot"))
	}
	if len(links) > 0 {
		fmt.Fprintf(&b, "\n%s", strings.Join(links, " · "))
	}
	out, err := json.Marshal(struct {
		Text string `json:"text"`
	}{b.String()})
	if err != nil {
		// Marshalling a struct with one string field cannot fail.
		panic(err)
	}
	return out
}

// PostSlack posts a SlackMessage to an incoming-webhook URL. The outcome is
// read like a webhook's (2xx success, 410 gone, anything else retry);
// client should come from netguard.NewClient.
func PostSlack(ctx context.Context, client *http.Client, url string, body []byte) Result {
	return post(ctx, client, url, nil, body, time.Now())
}

// slackEscape escapes the three characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackLink is <url|label>. A | or > in the URL would end it early, and
// Slack reads &amp; back as &.
func slackLink(url, label string) string {
	url = strings.NewReplacer("&", "&amp;", "|", "%7C", ">", "%3E", "<", "%3C").Replace(url)
	return "<" + url + "|" + label + ">"
}

// excerpt collapses whitespace and cuts long text at excerptRunes.
func excerpt(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:excerptRunes])) + "…"
}

// oneLine collapses all whitespace, newlines included, to single spaces.
// It also keeps user text from injecting header lines.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// wrap breaks text into lines of at most width runes where it can.
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		wl := utf8.RuneCountInString(w)
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
