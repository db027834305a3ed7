package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"earshot/collect/wire"
)

// Default hosts of the two keyword news searches.
const (
	GoogleNewsBaseURL = "https://news.google.com"
	GDELTBaseURL      = "https://api.gdeltproject.org"
)

// gdeltWindow is how far back GDELT DOC 2.0 searches (a rolling 3 months).
const gdeltWindow = 90 * 24 * time.Hour

// NewsConfig configures the news collector.
type NewsConfig struct {
	GoogleNewsBaseURL string       // EARSHOT_NEWS_BASE_URL; default GoogleNewsBaseURL
	GDELTBaseURL      string       // EARSHOT_GDELT_BASE_URL; default GDELTBaseURL
	Client            *http.Client // Google News and GDELT
	// FeedClient reads the monitors' feed_urls, which users supply; default
	// NewUserURLClient(false), the guarded client (see userurl.go).
	FeedClient *http.Client
	Now        func() time.Time
}

// News reads a monitor's own RSS/Atom feeds (feed_urls) and, when the
// monitor has keywords, searches Google News RSS and GDELT DOC 2.0. Neither
// search needs a key. Google News' terms allow personal, non-commercial
// feed-reader use only; operators decide whether that covers them.
type News struct {
	cfg   NewsConfig
	http  *HTTP // Google News, GDELT
	feeds *HTTP // feed_urls
}

// NewNews returns a news collector.
func NewNews(cfg NewsConfig) *News {
	cfg.GoogleNewsBaseURL = orDefault(cfg.GoogleNewsBaseURL, GoogleNewsBaseURL)
	cfg.GDELTBaseURL = orDefault(cfg.GDELTBaseURL, GDELTBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FeedClient == nil {
		cfg.FeedClient = NewUserURLClient(false)
	}
	return &News{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "news", Now: cfg.Now},
		feeds: &HTTP{Client: cfg.FeedClient, Source: "news", Now: cfg.Now, UserURL: true}}
}

func (n *News) Source() string { return "news" }

// Configured is always true: feeds, Google News and GDELT need no
// credentials.
func (n *News) Configured() (bool, string) { return true, "" }

// Fetch reads every feed URL, then the two keyword searches, and returns
// the items published at or after q.Since, deduplicated by link. Each feed
// and each search is a unit of its own (see PartialError): one that fails
// adds nothing, not even the items it parsed before the failure, and does
// not hide what the others returned; the error names every failed unit.
func (n *News) Fetch(ctx context.Context, q Query) (Batch, error) {
	now := n.cfg.Now().UTC()
	var posts []Post
	var errs []error
	seen := map[string]bool{}
	add := func(got []Post) {
		for _, p := range got {
			key := strings.TrimSpace(p.URL)
			if key == "" {
				key = p.ExternalID
			}
			if seen[key] || p.PublishedAt.Before(q.Since) {
				continue
			}
			seen[key] = true
			posts = append(posts, p)
		}
	}
	for _, u := range q.FeedURLs {
		got, err := n.fetchFeed(ctx, n.feeds, u, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("feed %s: %w", u, err))
			continue
		}
		add(got)
	}
	if gq := googleNewsQuery(q, now); gq != "" {
		u := n.cfg.GoogleNewsBaseURL + "/rss/search?q=" + url.QueryEscape(gq) + "&hl=en-US&gl=US&ceid=US:en"
		got, err := n.fetchFeed(ctx, n.http, u, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("google news: %w", err))
		} else {
			add(got)
		}
	}
	if gq := gdeltQuery(q); gq != "" {
		got, err := n.fetchGDELT(ctx, gq, q.Since, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("gdelt: %w", err))
		} else {
			add(got)
		}
	}
	if ctx.Err() != nil {
		return Batch{}, ctx.Err()
	}
	return Batch{Posts: posts}, partial(errs)
}

// --- RSS 2.0 / RSS 1.0 / Atom ---

type feedLink struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
	Text string `xml:",chardata"`
}

type rssItem struct {
	Title       string     `xml:"title"`
	Links       []feedLink `xml:"link"`
	Description string     `xml:"description"`
	Content     string     `xml:"http://purl.org/rss/1.0/modules/content/ encoded"`
	PubDate     string     `xml:"pubDate"`
	DCDate      string     `xml:"http://purl.org/dc/elements/1.1/ date"`
	GUID        string     `xml:"guid"`
	Author      string     `xml:"author"`
	Creator     string     `xml:"http://purl.org/dc/elements/1.1/ creator"`
	Source      struct {
		URL  string `xml:"url,attr"`
		Name string `xml:",chardata"`
	} `xml:"source"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",innerxml"`
}

// text returns an Atom text construct as plain text: type="xhtml" and
// type="html" carry markup and are stripped; type="text" (the default) is
// plain text, where "<AcmeProvider>" is a word, so only its escaping is
// undone.
func (t atomText) text() string {
	switch t.Type {
	case "html":
		// innerxml keeps the XML escaping: undo it once, then strip HTML.
		return wire.PlainText(xmlUnescape(t.Body))
	case "xhtml":
		return wire.PlainText(t.Body)
	}
	if strings.Contains(t.Body, "<![CDATA[") {
		return wire.UnescapeText(wire.UnwrapCDATA(t.Body))
	}
	return wire.UnescapeText(xmlUnescape(t.Body))
}

type atomEntry struct {
	ID        string     `xml:"id"`
	Title     atomText   `xml:"title"`
	Links     []feedLink `xml:"link"`
	Published string     `xml:"published"`
	Updated   string     `xml:"updated"`
	Authors   []struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Summary atomText `xml:"summary"`
	Content atomText `xml:"content"`
}

type feedDoc struct {
	XMLName xml.Name
	Channel struct {
		Title string    `xml:"title"`
		Items []rssItem `xml:"item"`
	} `xml:"channel"`
	Items   []rssItem   `xml:"item"` // RSS 1.0: items beside the channel
	Title   atomText    `xml:"title"`
	Entries []atomEntry `xml:"entry"`
}

func (n *News) fetchFeed(ctx context.Context, client *HTTP, feedURL string, now time.Time) ([]Post, error) {
	if client.UserURL {
		if err := checkUserURL(feedURL); err != nil {
			return nil, err
		}
	}
	body, _, err := client.Do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, feedURL, nil)
		if err == nil {
			req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8")
		}
		return req, err
	})
	if err != nil {
		return nil, err
	}
	return ParseFeed(body, feedURL, now)
}

// ParseFeed parses an RSS 2.0, RSS 1.0 or Atom document into news posts.
// Anything else (an HTML page, broken XML) is an error. Items without a
// date are stamped now: they were new to us at this fetch.
func ParseFeed(body []byte, feedURL string, now time.Time) ([]Post, error) {
	var doc feedDoc
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Entity = xml.HTMLEntity // &nbsp; and friends appear unescaped in real feeds
	d.CharsetReader = charsetReader
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("malformed feed: %w", err)
	}
	isGoogle := strings.Contains(feedURL, "/rss/search") || strings.Contains(strings.ToLower(doc.Channel.Title), "google news")
	var posts []Post
	switch strings.ToLower(doc.XMLName.Local) {
	case "rss", "rdf":
		items := append(doc.Channel.Items, doc.Items...)
		feedTitle := wire.PlainText(doc.Channel.Title)
		for _, it := range items {
			p, err := rssPost(it, feedTitle, isGoogle, now)
			if err != nil {
				return posts, err
			}
			posts = append(posts, p)
		}
	case "feed":
		feedTitle := doc.Title.text()
		for _, e := range doc.Entries {
			p, err := atomPost(e, feedTitle, now)
			if err != nil {
				return posts, err
			}
			posts = append(posts, p)
		}
	default:
		return nil, fmt.Errorf("malformed feed: root element <%s> is neither RSS nor Atom", doc.XMLName.Local)
	}
	return posts, nil
}

func rssPost(it rssItem, feedTitle string, isGoogle bool, now time.Time) (Post, error) {
	link := ""
	for _, l := range it.Links {
		if v := strings.TrimSpace(l.Text); v != "" {
			link = v
			break
		}
		if link == "" && l.Href != "" && (l.Rel == "" || l.Rel == "alternate") {
			link = l.Href
		}
	}
	guid := strings.TrimSpace(it.GUID)
	if link == "" && strings.HasPrefix(guid, "http") {
		link = guid
	}
	id := guid
	if id == "" {
		id = link
	}
	// RSS says nothing of markup in titles, and feeds do put escaped HTML
	// there (<em>, <b>), so titles are stripped like descriptions.
	title := wire.PlainText(it.Title)
	if id == "" && title == "" {
		return Post{}, fmt.Errorf("malformed feed: item with neither guid, link nor title")
	}
	if id == "" {
		id = contentID(feedTitle, title, it.PubDate)
	}
	published := now
	for _, s := range []string{it.PubDate, it.DCDate} {
		if strings.TrimSpace(s) == "" {
			continue
		}
		t, err := wire.ParseTimestamp(s)
		if err != nil {
			return Post{}, fmt.Errorf("item %s: %w", id, err)
		}
		published = t
		break
	}
	author := wire.PlainText(firstNonEmpty(it.Creator, rssAuthorName(it.Author)))
	var text string
	if isGoogle {
		// Google News: "Headline - Outlet"; the description only repeats it.
		outlet := wire.PlainText(it.Source.Name)
		if outlet != "" {
			title = strings.TrimSuffix(title, " - "+outlet)
			author = outlet
		}
		text = title
	} else {
		body := it.Content
		if strings.TrimSpace(body) == "" {
			body = it.Description
		}
		text = joinText(title, wire.PlainText(body))
	}
	if author == "" {
		author = feedTitle
	}
	return Post{
		Source:       "news",
		ExternalID:   id,
		URL:          link,
		AuthorHandle: author,
		Text:         text,
		PublishedAt:  published,
		Engagement:   map[string]int64{},
	}, nil
}

func atomPost(e atomEntry, feedTitle string, now time.Time) (Post, error) {
	link := ""
	for _, l := range e.Links {
		if l.Rel == "" || l.Rel == "alternate" {
			link = l.Href
			break
		}
	}
	if link == "" && len(e.Links) > 0 {
		link = e.Links[0].Href
	}
	id := strings.TrimSpace(e.ID)
	if id == "" {
		id = link
	}
	title := e.Title.text()
	if id == "" {
		return Post{}, fmt.Errorf("malformed feed: entry with neither id nor link")
	}
	published := now
	if s := firstNonEmpty(e.Published, e.Updated); s != "" {
		t, err := wire.ParseTimestamp(s)
		if err != nil {
			return Post{}, fmt.Errorf("entry %s: %w", id, err)
		}
		published = t
	}
	body := e.Content.text()
	if body == "" {
		body = e.Summary.text()
	}
	author := feedTitle
	if len(e.Authors) > 0 && strings.TrimSpace(e.Authors[0].Name) != "" {
		author = wire.PlainText(e.Authors[0].Name)
	}
	return Post{
		Source:       "news",
		ExternalID:   id,
		URL:          link,
		AuthorHandle: author,
		Text:         joinText(title, body),
		PublishedAt:  published,
		Engagement:   map[string]int64{},
	}, nil
}

// rssAuthorName takes the name out of RSS <author>, which the spec wants as
// "email (Name)".
func rssAuthorName(s string) string {
	s = strings.TrimSpace(s)
	if i, j := strings.Index(s, "("), strings.LastIndex(s, ")"); i >= 0 && j > i {
		return strings.TrimSpace(s[i+1 : j])
	}
	return s
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var xmlEscapes = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&apos;", "'")

func xmlUnescape(s string) string {
	if strings.Contains(s, "<![CDATA[") {
		return s // PlainText unwraps CDATA; its content is not escaped
	}
	return xmlEscapes.Replace(s)
}

// charsetReader accepts the single-byte encodings old feeds still declare.
// Windows-1252's 0x80–0x9F punctuation is approximated by Latin-1.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1", "iso-8859-15", "windows-1252", "cp1252":
		raw, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, 0, len(raw)*2)
		for _, c := range raw {
			buf = utf8.AppendRune(buf, rune(c))
		}
		return bytes.NewReader(buf), nil
	}
	return nil, fmt.Errorf("unsupported charset %q", charset)
}

// --- keyword searches ---

func quotedKeywords(list []string) []string {
	out := queryKeywords(list, `"`)
	for i, k := range out {
		out[i] = `"` + k + `"`
	}
	return out
}

// googleNewsQuery writes the monitor as a Google News query with a when:
// window covering q.Since; "" when the monitor has no keywords.
func googleNewsQuery(q Query, now time.Time) string {
	kws := quotedKeywords(q.Keywords)
	if len(kws) == 0 {
		return ""
	}
	var s string
	switch q.QueryMode {
	case "all":
		s = strings.Join(kws, " ")
	case "phrase":
		s = `"` + strings.ReplaceAll(strings.Join(kws, " "), `"`, "") + `"`
	default:
		s = strings.Join(kws, " OR ")
	}
	for _, x := range quotedKeywords(q.ExcludeKeywords) {
		s += " -" + x
	}
	window := now.Sub(q.Since)
	switch {
	case q.Since.IsZero() || window > 30*24*time.Hour:
		s += " when:30d"
	case window <= 48*time.Hour:
		h := int(window.Hours()) + 1
		s += fmt.Sprintf(" when:%dh", h)
	default:
		s += fmt.Sprintf(" when:%dd", int(window.Hours()/24)+1)
	}
	return s
}

// gdeltQuery writes the monitor in GDELT's syntax: OR only inside
// parentheses, and parentheses only around ORs.
func gdeltQuery(q Query) string {
	kws := quotedKeywords(q.Keywords)
	switch {
	case len(kws) == 0:
		return ""
	case q.QueryMode == "phrase":
		return `"` + strings.ReplaceAll(strings.Join(kws, " "), `"`, "") + `"`
	case q.QueryMode == "all" || len(kws) == 1:
		return strings.Join(kws, " ")
	}
	return "(" + strings.Join(kws, " OR ") + ")"
}

type gdeltResponse struct {
	Articles []struct {
		URL           string `json:"url"`
		Title         string `json:"title"`
		SeenDate      string `json:"seendate"`
		Domain        string `json:"domain"`
		Language      string `json:"language"`
		SourceCountry string `json:"sourcecountry"`
	} `json:"articles"`
}

func (n *News) fetchGDELT(ctx context.Context, query string, since, now time.Time) ([]Post, error) {
	params := url.Values{}
	params.Set("query", query)
	params.Set("mode", "artlist")
	params.Set("format", "json")
	params.Set("maxrecords", "250")
	params.Set("sort", "datedesc")
	if since.IsZero() || now.Sub(since) > gdeltWindow {
		params.Set("timespan", "3m")
	} else {
		params.Set("startdatetime", since.UTC().Format("20060102150405"))
		params.Set("enddatetime", now.UTC().Format("20060102150405"))
	}
	u := n.cfg.GDELTBaseURL + "/api/v2/doc/doc?" + params.Encode()
	body, _, err := n.http.Do(ctx, func() (*http.Request, error) {
		return http.NewRequest(http.MethodGet, u, nil)
	})
	if err != nil {
		return nil, err
	}
	return parseGDELT(body, now)
}

// parseGDELT reads a GDELT artlist answer. GDELT reports throttling and
// query errors as plain text, often with status 200, so the body is
// checked before it is parsed.
func parseGDELT(body []byte, now time.Time) ([]Post, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		text := strings.ToLower(string(trimmed))
		if strings.Contains(text, "limit requests") || strings.Contains(text, "rate limit") {
			return nil, &RateLimitedError{Source: "news", Until: now.Add(time.Minute)}
		}
		return nil, fmt.Errorf("malformed response (GDELT answered %d bytes of text, not JSON)", len(trimmed))
	}
	var r gdeltResponse
	if err := json.Unmarshal(trimmed, &r); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	var posts []Post
	for _, a := range r.Articles {
		if a.URL == "" {
			return posts, fmt.Errorf("malformed response: article without url")
		}
		t, err := time.Parse("20060102T150405Z", a.SeenDate)
		if err != nil {
			return posts, fmt.Errorf("article %s: bad seendate: %w", a.URL, err)
		}
		posts = append(posts, Post{
			Source:       "news",
			ExternalID:   a.URL,
			URL:          a.URL,
			AuthorHandle: a.Domain,
			Text:         wire.UnescapeText(a.Title),
			PublishedAt:  t.UTC(),
			Engagement:   map[string]int64{},
		})
	}
	return posts, nil
}
