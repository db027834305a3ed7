package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"earshot/collect/wire"
)

// Mastodon reads the instances the operator lists in
// EARSHOT_MASTODON_INSTANCES (README, Mastodon). Per instance and scan:
//
//   - the public hashtag timeline (/api/v1/timelines/tag/{tag}) of every
//     keyword that can be a hashtag ("Acme", "#acme", "Acme Projects" as
//     #AcmeProjects), no token needed;
//   - with the instance's access token, full-text search
//     (/api/v2/search?type=statuses) of the keywords. Mastodon search only
//     finds what that instance holds and indexes: posts of accounts that
//     opted in to search (4.2+), and posts the token's user wrote, boosted,
//     favourited or was mentioned in; an instance without its search
//     backend answers nothing;
//   - the statuses of watch_accounts (user@instance), looked up on the
//     account's home instance when it is listed, otherwise the first one
//     (which, with a token, fetches an account it does not know yet).
//
// Timelines and account statuses page through the Link header (rel="next",
// max_id) until posts older than Query.Since; search pages by offset. Each
// instance stands alone (a PartialError names the failed ones), so one
// instance that is down does not stop the others. A status is stored under
// its ActivityPub uri, so the same post seen on two instances is one
// mention.

const (
	mastodonLimit    = 40 // statuses per page, the API's maximum
	mastodonMaxPages = 5  // per timeline, search or account and scan
)

// MastodonInstance is one entry of EARSHOT_MASTODON_INSTANCES.
type MastodonInstance struct {
	BaseURL string // https://mastodon.social (a path is kept: tests and the demo mount instances under one)
	Token   string // optional access token (read:search, read:statuses, read:accounts)
}

// ParseMastodonInstances reads EARSHOT_MASTODON_INSTANCES: a comma-separated
// list of instances, each a host or an http(s) URL, optionally followed by
// "=" and an access token for that instance, e.g.
// "mastodon.social=TOKEN,fosstodon.org,https://hachyderm.io=TOKEN2".
func ParseMastodonInstances(s string) ([]MastodonInstance, error) {
	var out []MastodonInstance
	seen := map[string]bool{}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		inst, token, _ := strings.Cut(entry, "=")
		inst, token = strings.TrimSpace(inst), strings.TrimSpace(token)
		if !strings.Contains(inst, "://") {
			inst = "https://" + inst
		}
		u, err := url.Parse(inst)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || u.RawQuery != "" {
			return nil, fmt.Errorf("entry %d (%q) is not a host or an http(s) URL", i+1, strings.TrimSpace(strings.SplitN(entry, "=", 2)[0]))
		}
		base := strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/")
		if seen[strings.ToLower(base)] {
			continue
		}
		seen[strings.ToLower(base)] = true
		out = append(out, MastodonInstance{BaseURL: base, Token: token})
	}
	return out, nil
}

// MastodonConfig configures the Mastodon collector.
type MastodonConfig struct {
	Instances string // EARSHOT_MASTODON_INSTANCES (see ParseMastodonInstances)
	Client    *http.Client
	Now       func() time.Time
	MaxPages  int // default mastodonMaxPages
}

// Mastodon collects statuses from the configured instances.
type Mastodon struct {
	cfg       MastodonConfig
	instances []MastodonInstance
	parseErr  error
	http      *HTTP

	mu  sync.Mutex
	ids map[string]string // instance + "|" + acct → account id
}

// NewMastodon returns a Mastodon collector.
func NewMastodon(cfg MastodonConfig) *Mastodon {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = mastodonMaxPages
	}
	insts, err := ParseMastodonInstances(cfg.Instances)
	return &Mastodon{cfg: cfg, instances: insts, parseErr: err, ids: map[string]string{},
		http: &HTTP{Client: cfg.Client, Source: "mastodon", Now: cfg.Now}}
}

func (m *Mastodon) Source() string { return "mastodon" }

func (m *Mastodon) Configured() (bool, string) {
	if m.parseErr != nil {
		return false, "EARSHOT_MASTODON_INSTANCES correctly: " + m.parseErr.Error()
	}
	if len(m.instances) == 0 {
		return false, "EARSHOT_MASTODON_INSTANCES"
	}
	return true, ""
}

// StatusNote says, when no instance has a token, that keywords are only
// looked for as hashtags.
func (m *Mastodon) StatusNote() string {
	for _, in := range m.instances {
		if in.Token != "" {
			return ""
		}
	}
	return "hashtag timelines and watched accounts only: no instance in EARSHOT_MASTODON_INSTANCES has an access token for full-text search"
}

// mastodonStatus is the Status entity, the fields we read.
type mastodonStatus struct {
	ID          string `json:"id"`
	URI         string `json:"uri"`
	URL         string `json:"url"`
	CreatedAt   string `json:"created_at"`
	Content     string `json:"content"`
	SpoilerText string `json:"spoiler_text"`
	Visibility  string `json:"visibility"`
	Account     struct {
		Acct           string `json:"acct"`
		URL            string `json:"url"`
		FollowersCount int64  `json:"followers_count"`
	} `json:"account"`
	Reblog          *struct{} `json:"reblog"`
	RepliesCount    int64     `json:"replies_count"`
	ReblogsCount    int64     `json:"reblogs_count"`
	FavouritesCount int64     `json:"favourites_count"`
}

// Fetch reads every instance; see the comment at the top.
func (m *Mastodon) Fetch(ctx context.Context, q Query) (Batch, error) {
	if ok, missing := m.Configured(); !ok {
		return Batch{}, fmt.Errorf("mastodon: not configured: set %s", missing)
	}
	seen := map[string]bool{}
	var posts []Post
	var errs []error
	accounts := m.accountsByInstance(q.WatchAccounts)
	for i, inst := range m.instances {
		got, err := m.fetchInstance(ctx, inst, q, accounts[i])
		if err != nil {
			if ctx.Err() != nil {
				return Batch{}, ctx.Err()
			}
			errs = append(errs, err) // this instance contributes nothing
			continue
		}
		for _, p := range got {
			if !seen[p.ExternalID] {
				seen[p.ExternalID] = true
				posts = append(posts, p)
			}
		}
	}
	if len(errs) == len(m.instances) {
		return Batch{}, errors.Join(errs...)
	}
	return Batch{Posts: posts}, partial(errs)
}

func (m *Mastodon) fetchInstance(ctx context.Context, inst MastodonInstance, q Query, accounts []string) ([]Post, error) {
	var out []Post
	for _, tag := range mastodonTags(q.Keywords) {
		got, err := m.timeline(ctx, inst, "/api/v1/timelines/tag/"+url.PathEscape(tag), url.Values{}, q.Since)
		if err != nil {
			return nil, fmt.Errorf("mastodon: %s #%s: %w", inst.BaseURL, tag, err)
		}
		out = append(out, got...)
	}
	if inst.Token != "" {
		for _, term := range searchTerms(q) {
			got, err := m.search(ctx, inst, term, q.Since)
			if err != nil {
				return nil, fmt.Errorf("mastodon: %s search %q: %w", inst.BaseURL, term, err)
			}
			out = append(out, got...)
		}
	}
	for _, acct := range accounts {
		id, err := m.lookup(ctx, inst, acct)
		if err != nil {
			return nil, fmt.Errorf("mastodon: %s looking up %s: %w", inst.BaseURL, acct, err)
		}
		if id == "" {
			continue // not known there: nothing to read (README)
		}
		got, err := m.timeline(ctx, inst, "/api/v1/accounts/"+url.PathEscape(id)+"/statuses", url.Values{"exclude_reblogs": {"true"}}, q.Since)
		if err != nil {
			return nil, fmt.Errorf("mastodon: %s statuses of %s: %w", inst.BaseURL, acct, err)
		}
		out = append(out, got...)
	}
	return out, nil
}

// timeline pages a newest-first list of statuses through Link rel="next"
// until posts older than since.
func (m *Mastodon) timeline(ctx context.Context, inst MastodonInstance, path string, params url.Values, since time.Time) ([]Post, error) {
	params.Set("limit", strconv.Itoa(mastodonLimit))
	var out []Post
	for page := 0; page < m.cfg.MaxPages; page++ {
		var list *[]mastodonStatus
		hdr, err := m.get(ctx, inst, path, params, &list)
		if err != nil {
			return nil, err
		}
		if list == nil {
			return nil, fmt.Errorf("%w: not a list of statuses", errMalformed)
		}
		older := false
		for _, s := range *list {
			p, ok, err := s.post(inst)
			if err != nil {
				return nil, err
			}
			if p.PublishedAt.Before(since) {
				older = true
				continue
			}
			if ok {
				out = append(out, p)
			}
		}
		next := linkNextMaxID(hdr.Get("Link"))
		if older || len(*list) == 0 || next == "" || next == params.Get("max_id") {
			break
		}
		if err := m.waitForBudget(ctx, hdr); err != nil {
			return nil, err
		}
		params.Set("max_id", next)
	}
	return out, nil
}

// search pages full-text status search by offset; results are not
// strictly newest first, so only a page wholly older than since ends it.
func (m *Mastodon) search(ctx context.Context, inst MastodonInstance, term string, since time.Time) ([]Post, error) {
	params := url.Values{"q": {term}, "type": {"statuses"}, "resolve": {"false"}, "limit": {strconv.Itoa(mastodonLimit)}}
	var out []Post
	offset := 0
	for page := 0; page < m.cfg.MaxPages; page++ {
		var res struct {
			Statuses *[]mastodonStatus `json:"statuses"`
		}
		hdr, err := m.get(ctx, inst, "/api/v2/search", params, &res)
		if err != nil {
			return nil, err
		}
		if res.Statuses == nil {
			return nil, fmt.Errorf("%w: search without \"statuses\"", errMalformed)
		}
		fresh := 0
		for _, s := range *res.Statuses {
			p, ok, err := s.post(inst)
			if err != nil {
				return nil, err
			}
			if p.PublishedAt.Before(since) {
				continue
			}
			fresh++
			if ok {
				out = append(out, p)
			}
		}
		offset += len(*res.Statuses)
		if len(*res.Statuses) < mastodonLimit || fresh == 0 {
			break
		}
		if err := m.waitForBudget(ctx, hdr); err != nil {
			return nil, err
		}
		params.Set("offset", strconv.Itoa(offset))
	}
	return out, nil
}

// lookup returns the instance's id of account acct (user@host); "" when the
// instance does not know it (and cannot resolve it: no token, or no such
// account). Ids are remembered for the process's life.
func (m *Mastodon) lookup(ctx context.Context, inst MastodonInstance, acct string) (string, error) {
	key := inst.BaseURL + "|" + strings.ToLower(acct)
	m.mu.Lock()
	id, ok := m.ids[key]
	m.mu.Unlock()
	if ok {
		return id, nil
	}
	user, host, _ := strings.Cut(acct, "@")
	if strings.EqualFold(host, instanceHost(inst)) {
		acct = user // a local account is looked up by its bare name
	}
	var a struct {
		ID string `json:"id"`
	}
	if _, err := m.get(ctx, inst, "/api/v1/accounts/lookup", url.Values{"acct": {acct}}, &a); err != nil {
		var se *StatusError
		if !errors.As(err, &se) || se.Status != http.StatusNotFound {
			return "", err
		}
		// Not known there yet. With a token the instance can fetch a remote
		// account (WebFinger) through search with resolve=true.
		if inst.Token == "" || !strings.Contains(acct, "@") {
			return "", nil
		}
		var res struct {
			Accounts []struct {
				ID   string `json:"id"`
				Acct string `json:"acct"`
			} `json:"accounts"`
		}
		if _, err := m.get(ctx, inst, "/api/v2/search", url.Values{"q": {"@" + acct}, "type": {"accounts"}, "resolve": {"true"}, "limit": {"1"}}, &res); err != nil {
			return "", err
		}
		if len(res.Accounts) == 0 || !strings.EqualFold(res.Accounts[0].Acct, acct) {
			return "", nil
		}
		a.ID = res.Accounts[0].ID
	}
	if a.ID == "" {
		return "", fmt.Errorf("%w: account without id", errMalformed)
	}
	m.mu.Lock()
	m.ids[key] = a.ID
	m.mu.Unlock()
	return a.ID, nil
}

func (m *Mastodon) get(ctx context.Context, inst MastodonInstance, path string, params url.Values, v any) (http.Header, error) {
	u := inst.BaseURL + path
	if len(params) > 0 {
		u += "?" + params.Encode()
	}
	return m.http.DoJSON(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if inst.Token != "" {
			req.Header.Set("Authorization", "Bearer "+inst.Token)
		}
		return req, nil
	}, v)
}

// waitForBudget honours X-RateLimit-Remaining (300 requests per 5 minutes
// per account or IP by default) before the next page.
func (m *Mastodon) waitForBudget(ctx context.Context, hdr http.Header) error {
	if strings.TrimSpace(hdr.Get("X-Ratelimit-Remaining")) != "0" {
		return nil
	}
	return m.http.waitForReset(ctx, hdr)
}

// post maps a status; ok is false for what is not a public post of its
// author (a boost, a followers-only or direct status).
func (s mastodonStatus) post(inst MastodonInstance) (Post, bool, error) {
	if s.ID == "" && s.URI == "" {
		return Post{}, false, fmt.Errorf("%w: status without id", errMalformed)
	}
	published, err := wire.ParseTimestamp(s.CreatedAt)
	if err != nil {
		return Post{}, false, fmt.Errorf("%w: status %s: %v", errMalformed, s.ID, err)
	}
	id := s.URI
	if id == "" {
		id = instanceHost(inst) + "/" + s.ID
	}
	link := s.URL
	if link == "" {
		link = s.URI
	}
	if !strings.HasPrefix(link, "https://") && !strings.HasPrefix(link, "http://") {
		link = inst.BaseURL + "/statuses/" + url.PathEscape(s.ID)
	}
	acct := wire.NormalizeHandle(s.Account.Acct)
	if acct != "" && !strings.Contains(acct, "@") {
		host := instanceHost(inst)
		if u, err := url.Parse(s.Account.URL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		acct += "@" + host // local accounts: acct is the bare name
	}
	p := Post{
		Source:          "mastodon",
		ExternalID:      id,
		URL:             link,
		AuthorHandle:    acct,
		AuthorFollowers: s.Account.FollowersCount,
		Text:            joinText(s.SpoilerText, wire.PlainText(s.Content)), // content is HTML; spoiler_text is the content warning
		PublishedAt:     published.UTC(),
		Engagement:      map[string]int64{"favourites": s.FavouritesCount, "reblogs": s.ReblogsCount, "replies": s.RepliesCount},
	}
	public := s.Visibility == "" || s.Visibility == "public" || s.Visibility == "unlisted"
	return p, s.Reblog == nil && public, nil
}

func instanceHost(inst MastodonInstance) string {
	u, err := url.Parse(inst.BaseURL)
	if err != nil {
		return inst.BaseURL
	}
	return u.Hostname()
}

var reLinkNext = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// linkNextMaxID is the max_id of a Link header's rel="next" URL; paging
// stays on our own base URL with it.
func linkNextMaxID(link string) string {
	m := reLinkNext.FindStringSubmatch(link)
	if m == nil {
		return ""
	}
	u, err := url.Parse(m[1])
	if err != nil {
		return ""
	}
	return u.Query().Get("max_id")
}

// accountsByInstance assigns each watched user@host to the instance that
// reads it: its home instance when listed, otherwise the first one.
func (m *Mastodon) accountsByInstance(watch []string) [][]string {
	out := make([][]string, len(m.instances))
	if len(m.instances) == 0 {
		return out
	}
	for _, acct := range watchHandles("mastodon", watch) {
		_, host, _ := strings.Cut(acct, "@")
		i := 0
		for j, inst := range m.instances {
			if strings.EqualFold(instanceHost(inst), host) {
				i = j
				break
			}
		}
		out[i] = append(out[i], acct)
	}
	return out
}

// mastodonTags returns the hashtags of the keywords that can be one:
// letters, digits and underscores once "#" and spaces are removed
// ("Acme Projects" → AcmeProjects), without repeats (tags are
// case-insensitive).
func mastodonTags(keywords []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range queryKeywords(keywords, `"`) {
		tag := strings.Join(strings.Fields(strings.TrimLeft(k, "#")), "")
		if tag == "" || len(tag) > 100 || seen[strings.ToLower(tag)] {
			continue
		}
		ok := false
		for _, r := range tag {
			if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				ok = false
				break
			}
			ok = ok || unicode.IsLetter(r)
		}
		if ok {
			seen[strings.ToLower(tag)] = true
			out = append(out, tag)
		}
	}
	return out
}
