package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Default hosts of the review APIs.
const (
	AppStoreBaseURL   = "https://itunes.apple.com"
	TrustpilotBaseURL = "https://api.trustpilot.com"
)

const (
	appStoreMaxPages   = 10 // Apple serves at most 10 pages of 50
	trustpilotMaxPages = 5
)

// ReviewsConfig configures the reviews collector.
type ReviewsConfig struct {
	AppStoreBaseURL   string       // EARSHOT_APPSTORE_BASE_URL; default AppStoreBaseURL
	TrustpilotBaseURL string       // EARSHOT_TRUSTPILOT_BASE_URL; default TrustpilotBaseURL
	TrustpilotAPIKey  string       // EARSHOT_TRUSTPILOT_API_KEY; optional
	Client            *http.Client // App Store and Trustpilot APIs
	// PageClient reads review_urls as pages (JSON-LD, Trustpilot without a
	// key), which users supply; default NewUserURLClient(false), the
	// guarded client (see userurl.go).
	PageClient *http.Client
	Now        func() time.Time
}

// Reviews reads the review URLs a monitor names. It recognises each URL by
// host and path:
//   - apps.apple.com / itunes.apple.com: the App Store customer-reviews feed;
//   - trustpilot.com/review/{domain}: the Trustpilot API when a key is set,
//     otherwise the page's own JSON-LD;
//   - anything else: a page carrying schema.org Review JSON-LD.
type Reviews struct {
	cfg   ReviewsConfig
	http  *HTTP // App Store, Trustpilot API
	pages *HTTP // review_urls read as pages
}

// NewReviews returns a reviews collector.
func NewReviews(cfg ReviewsConfig) *Reviews {
	cfg.AppStoreBaseURL = orDefault(cfg.AppStoreBaseURL, AppStoreBaseURL)
	cfg.TrustpilotBaseURL = orDefault(cfg.TrustpilotBaseURL, TrustpilotBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PageClient == nil {
		cfg.PageClient = NewUserURLClient(false)
	}
	return &Reviews{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "reviews", Now: cfg.Now},
		pages: &HTTP{Client: cfg.PageClient, Source: "reviews", Now: cfg.Now, UserURL: true}}
}

func (r *Reviews) Source() string { return "reviews" }

// Configured is always true: App Store feeds and JSON-LD pages need no key;
// EARSHOT_TRUSTPILOT_API_KEY only switches Trustpilot from page to API.
func (r *Reviews) Configured() (bool, string) { return true, "" }

// ReviewURLKind names how a review URL is read.
type ReviewURLKind string

const (
	ReviewKindAppStore   ReviewURLKind = "appstore"
	ReviewKindTrustpilot ReviewURLKind = "trustpilot"
	ReviewKindJSONLD     ReviewURLKind = "jsonld"
)

var (
	reAppID      = regexp.MustCompile(`(?i)/id=?(\d{5,})`)
	reAppCountry = regexp.MustCompile(`^/([a-z]{2})/`)
)

// ClassifyReviewURL says how a review URL is read and, for the App Store,
// returns the country and app id; for Trustpilot, the reviewed domain.
func ClassifyReviewURL(raw string) (kind ReviewURLKind, country, id string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ReviewKindJSONLD, "", ""
	}
	host := strings.ToLower(u.Hostname())
	path := u.EscapedPath()
	isApple := host == "apps.apple.com" || host == "itunes.apple.com" || strings.Contains(strings.ToLower(path), "/rss/customerreviews/")
	if isApple {
		if m := reAppID.FindStringSubmatch(path); m != nil {
			country = "us"
			if c := reAppCountry.FindStringSubmatch(strings.ToLower(path)); c != nil {
				country = c[1]
			}
			return ReviewKindAppStore, country, m[1]
		}
	}
	if host == "trustpilot.com" || strings.HasSuffix(host, ".trustpilot.com") {
		if rest, ok := strings.CutPrefix(u.Path, "/review/"); ok && rest != "" {
			return ReviewKindTrustpilot, "", strings.SplitN(rest, "/", 2)[0]
		}
	}
	return ReviewKindJSONLD, "", ""
}

// Fetch reads every review URL and returns reviews published at or after
// q.Since. Each URL is a unit of its own (see PartialError): one that fails
// adds nothing, not even the reviews of pages read before the failure, and
// does not hide the others' reviews; the error names every failed URL.
func (r *Reviews) Fetch(ctx context.Context, q Query) (Batch, error) {
	var posts []Post
	var errs []error
	seen := map[string]bool{}
	for _, raw := range q.ReviewURLs {
		var got []Post
		var err error
		switch kind, country, id := ClassifyReviewURL(raw); kind {
		case ReviewKindAppStore:
			got, err = r.fetchAppStore(ctx, country, id, q.Since)
		case ReviewKindTrustpilot:
			if r.cfg.TrustpilotAPIKey != "" {
				got, err = r.fetchTrustpilot(ctx, id, q.Since)
			} else {
				got, err = r.fetchJSONLD(ctx, raw)
			}
		default:
			got, err = r.fetchJSONLD(ctx, raw)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", raw, err))
			continue
		}
		for _, p := range got {
			if seen[p.ExternalID] || !reviewInWindow(p, q.Since) {
				continue
			}
			seen[p.ExternalID] = true
			posts = append(posts, p)
		}
	}
	if ctx.Err() != nil {
		return Batch{}, ctx.Err()
	}
	return Batch{Posts: posts}, partial(errs)
}

// reviewInWindow compares date-only reviews (midnight UTC) by day, so a
// review dated today is not lost because the last scan ran this morning.
func reviewInWindow(p Post, since time.Time) bool {
	if p.PublishedAt.Equal(p.PublishedAt.Truncate(24 * time.Hour)) {
		return !p.PublishedAt.Before(since.UTC().Truncate(24 * time.Hour))
	}
	return !p.PublishedAt.Before(since)
}

// --- Apple App Store customer-reviews feed ---

type appStoreLabel struct {
	Label string `json:"label"`
}

type appStoreEntry struct {
	Author struct {
		Name appStoreLabel `json:"name"`
		URI  appStoreLabel `json:"uri"`
	} `json:"author"`
	Updated   appStoreLabel  `json:"updated"`
	Rating    *appStoreLabel `json:"im:rating"`
	Version   appStoreLabel  `json:"im:version"`
	ID        appStoreLabel  `json:"id"`
	Title     appStoreLabel  `json:"title"`
	Content   appStoreLabel  `json:"content"`
	VoteSum   appStoreLabel  `json:"im:voteSum"`
	VoteCount appStoreLabel  `json:"im:voteCount"`
}

type appStoreFeed struct {
	Feed *struct {
		Entry json.RawMessage `json:"entry"`
	} `json:"feed"`
}

func (r *Reviews) fetchAppStore(ctx context.Context, country, appID string, since time.Time) ([]Post, error) {
	var posts []Post
	for page := 1; page <= appStoreMaxPages; page++ {
		u := fmt.Sprintf("%s/%s/rss/customerreviews/page=%d/id=%s/sortby=mostrecent/json", r.cfg.AppStoreBaseURL, country, page, appID)
		var f appStoreFeed
		if _, err := r.http.GetJSON(ctx, u, &f); err != nil {
			return posts, err
		}
		entries, err := appStoreEntries(f)
		if err != nil {
			return posts, err
		}
		older := false
		reviews := 0
		for _, e := range entries {
			if e.Rating == nil {
				continue // older feeds put the app itself first
			}
			reviews++
			if strings.TrimSpace(e.Updated.Label) == "" {
				// Some feeds (an App Store capture from 2020) carry no
				// "updated", and no other date: without one the review
				// cannot be placed in the scan window, so it is skipped
				// rather than failing the whole source.
				continue
			}
			p, err := appStorePost(e, country, appID)
			if err != nil {
				return posts, err
			}
			if p.PublishedAt.Before(since) {
				older = true
				continue
			}
			posts = append(posts, p)
		}
		if reviews == 0 || older {
			break
		}
	}
	return posts, nil
}

// appStoreEntries reads feed.entry, which is an array, a single object when
// there is one review, or missing when there is none.
func appStoreEntries(f appStoreFeed) ([]appStoreEntry, error) {
	if f.Feed == nil {
		return nil, fmt.Errorf("malformed response: no \"feed\" object")
	}
	raw := bytes.TrimSpace(f.Feed.Entry)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var entries []appStoreEntry
	if raw[0] == '{' {
		var e appStoreEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("malformed response: %w", err)
		}
		return []appStoreEntry{e}, nil
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	return entries, nil
}

func appStorePost(e appStoreEntry, country, appID string) (Post, error) {
	if e.ID.Label == "" {
		return Post{}, fmt.Errorf("malformed response: review without id")
	}
	t, err := wire.ParseTimestamp(e.Updated.Label)
	if err != nil {
		return Post{}, fmt.Errorf("review %s: %w", e.ID.Label, err)
	}
	eng := map[string]int64{}
	for k, v := range map[string]string{"rating": e.Rating.Label, "voteSum": e.VoteSum.Label, "voteCount": e.VoteCount.Label} {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			eng[k] = n
		}
	}
	return Post{
		Source:       "reviews",
		ExternalID:   "appstore:" + e.ID.Label,
		URL:          fmt.Sprintf("https://apps.apple.com/%s/app/id%s?see-all=reviews#%s", country, appID, e.ID.Label),
		AuthorHandle: wire.NormalizeHandle(e.Author.Name.Label),
		Text:         joinText(wire.UnescapeText(e.Title.Label), wire.UnescapeText(e.Content.Label)), // content type "text"
		PublishedAt:  t,
		Engagement:   eng,
	}, nil
}

// --- Trustpilot Business Units API ---

type trustpilotReviews struct {
	Reviews *[]struct {
		ID        string `json:"id"`
		Stars     int64  `json:"stars"`
		Title     string `json:"title"`
		Text      string `json:"text"`
		Language  string `json:"language"`
		CreatedAt string `json:"createdAt"`
		Consumer  struct {
			DisplayName string `json:"displayName"`
		} `json:"consumer"`
	} `json:"reviews"`
}

func (r *Reviews) trustpilotGet(ctx context.Context, u string, v any) error {
	body, _, err := r.http.Do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err == nil {
			req.Header.Set("apikey", r.cfg.TrustpilotAPIKey)
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %w", errMalformed, jsonProblem(err, body))
	}
	return nil
}

func (r *Reviews) fetchTrustpilot(ctx context.Context, domain string, since time.Time) ([]Post, error) {
	var unit struct {
		ID string `json:"id"`
	}
	if err := r.trustpilotGet(ctx, r.cfg.TrustpilotBaseURL+"/v1/business-units/find?name="+url.QueryEscape(domain), &unit); err != nil {
		return nil, fmt.Errorf("finding business unit %q: %w", domain, err)
	}
	if unit.ID == "" {
		return nil, fmt.Errorf("malformed response: business unit %q without id", domain)
	}
	var posts []Post
	for page := 1; page <= trustpilotMaxPages; page++ {
		u := fmt.Sprintf("%s/v1/business-units/%s/reviews?orderBy=createdat.desc&perPage=100&page=%d",
			r.cfg.TrustpilotBaseURL, url.PathEscape(unit.ID), page)
		var resp trustpilotReviews
		if err := r.trustpilotGet(ctx, u, &resp); err != nil {
			return posts, err
		}
		if resp.Reviews == nil {
			return posts, fmt.Errorf("malformed response: no \"reviews\" array")
		}
		older := false
		for _, rv := range *resp.Reviews {
			if rv.ID == "" {
				return posts, fmt.Errorf("malformed response: review without id")
			}
			t, err := wire.ParseTimestamp(rv.CreatedAt)
			if err != nil {
				return posts, fmt.Errorf("review %s: %w", rv.ID, err)
			}
			if t.Before(since) {
				older = true
				continue
			}
			posts = append(posts, Post{
				Source:       "reviews",
				ExternalID:   "trustpilot:" + rv.ID,
				URL:          "https://www.trustpilot.com/reviews/" + rv.ID,
				AuthorHandle: wire.NormalizeHandle(rv.Consumer.DisplayName),
				Text:         joinText(wire.UnescapeText(rv.Title), wire.UnescapeText(rv.Text)), // plain text
				PublishedAt:  t,
				Engagement:   map[string]int64{"stars": rv.Stars},
			})
		}
		if len(*resp.Reviews) == 0 || older {
			break
		}
	}
	return posts, nil
}

// --- schema.org Review JSON-LD on any page ---

var reLDScript = regexp.MustCompile(`(?is)<script\b[^>]*\btype\s*=\s*["']?application/ld\+json["']?[^>]*>(.*?)</script\s*>`)

func (r *Reviews) fetchJSONLD(ctx context.Context, pageURL string) ([]Post, error) {
	if err := checkUserURL(pageURL); err != nil {
		return nil, err
	}
	body, _, err := r.pages.Do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, pageURL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/html,application/xhtml+xml")
		}
		return req, err
	})
	if err != nil {
		return nil, err
	}
	return ParseReviewPage(body, pageURL)
}

// ParseReviewPage extracts schema.org Review objects from a page's JSON-LD
// blocks: standalone, in @graph, in arrays, or nested under a reviewed
// item's "review". A page with no JSON-LD at all, or none that parses, is
// an error: the URL is not something we can read reviews from.
func ParseReviewPage(page []byte, pageURL string) ([]Post, error) {
	blocks := reLDScript.FindAllSubmatch(page, -1)
	if len(blocks) == 0 {
		return nil, fmt.Errorf("no schema.org JSON-LD on the page")
	}
	var posts []Post
	parsed := 0
	var firstErr error
	for _, b := range blocks {
		raw := bytes.TrimSpace(b[1])
		raw = bytes.TrimSuffix(bytes.TrimPrefix(raw, []byte("<!--")), []byte("-->"))
		var v any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		parsed++
		var walkErr error
		walkJSONLD(v, func(obj map[string]any) {
			p, err := jsonLDReview(obj, pageURL)
			if err != nil {
				if walkErr == nil {
					walkErr = err
				}
				return
			}
			posts = append(posts, p)
		})
		if walkErr != nil {
			return posts, walkErr
		}
	}
	if parsed == 0 {
		return nil, fmt.Errorf("malformed JSON-LD: %w", firstErr)
	}
	return posts, nil
}

// walkJSONLD calls fn for every object typed Review, anywhere in v.
func walkJSONLD(v any, fn func(map[string]any)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkJSONLD(e, fn)
		}
	case map[string]any:
		if hasType(x["@type"], "Review") {
			fn(x)
			return
		}
		for _, e := range x {
			walkJSONLD(e, fn)
		}
	}
}

func hasType(t any, want string) bool {
	switch x := t.(type) {
	case string:
		return strings.EqualFold(strings.TrimPrefix(strings.TrimPrefix(x, "http://schema.org/"), "https://schema.org/"), want)
	case []any:
		for _, e := range x {
			if hasType(e, want) {
				return true
			}
		}
	}
	return false
}

func jsonLDReview(obj map[string]any, pageURL string) (Post, error) {
	author := jsonLDName(obj["author"])
	date := jsonLDString(obj["datePublished"])
	if date == "" {
		date = jsonLDString(obj["dateCreated"])
	}
	body := wire.PlainText(firstNonEmpty(jsonLDString(obj["reviewBody"]), jsonLDString(obj["description"])))
	title := wire.PlainText(firstNonEmpty(jsonLDString(obj["name"]), jsonLDString(obj["headline"])))
	if date == "" {
		return Post{}, fmt.Errorf("review by %q has no datePublished", author)
	}
	t, err := wire.ParseTimestamp(date)
	if err != nil {
		return Post{}, fmt.Errorf("review by %q: %w", author, err)
	}
	link := pageURL
	if u := jsonLDString(obj["url"]); strings.HasPrefix(u, "http") {
		link = u
	}
	id := jsonLDString(obj["@id"])
	if id == "" {
		id = contentID(pageURL, author, date, title, body)
	}
	eng := map[string]int64{}
	if rating, ok := obj["reviewRating"].(map[string]any); ok {
		if n, ok := jsonLDNumber(rating["ratingValue"]); ok {
			eng["rating"] = n
		}
		if n, ok := jsonLDNumber(rating["bestRating"]); ok {
			eng["bestRating"] = n
		}
	}
	return Post{
		Source:       "reviews",
		ExternalID:   "jsonld:" + id,
		URL:          link,
		AuthorHandle: wire.NormalizeHandle(author),
		Text:         joinText(title, body),
		PublishedAt:  t,
		Engagement:   eng,
	}, nil
}

// jsonLDName reads an author: a string, a Person/Organization object, or an
// array of them (the first wins).
func jsonLDName(v any) string {
	switch x := v.(type) {
	case string:
		return wire.PlainText(x)
	case map[string]any:
		return wire.PlainText(jsonLDString(x["name"]))
	case []any:
		for _, e := range x {
			if n := jsonLDName(e); n != "" {
				return n
			}
		}
	}
	return ""
}

func jsonLDString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case map[string]any: // {"@value": "..."}
		return jsonLDString(x["@value"])
	}
	return ""
}

// jsonLDNumber reads ratingValue, a number or a string; fractional ratings
// are rounded (engagement counters are integers).
func jsonLDNumber(v any) (int64, bool) {
	s := strings.ReplaceAll(jsonLDString(v), ",", ".")
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	if f < 0 {
		return int64(f - 0.5), true
	}
	return int64(f + 0.5), true
}
