package collect

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"earshot/netguard"
	"earshot/vocab"
)

// Config is every collector's settings: per source its credentials and
// API base URLs (a zero field is the platform's default), read once by
// main from the EARSHOT_* variables the README lists; tests and the demo
// fill it themselves. The HTTP clients are NewRegistry's to set.
type Config struct {
	X        XConfig
	Reddit   RedditConfig
	YouTube  YouTubeConfig
	LinkedIn LinkedInConfig
	Threads  ThreadsConfig
	Bluesky  BlueskyConfig
	Mastodon MastodonConfig
	HN       HNConfig
	News     NewsConfig
	Reviews  ReviewsConfig
	// The developer-community sources (issue 27).
	GitHub        GitHubConfig
	StackOverflow StackOverflowConfig
	Discourse     DiscourseConfig
	Devto         DevtoConfig
	// AllowPrivate lets users' feed and review URLs reach private and
	// loopback addresses (EnvAllowPrivate): local development only.
	AllowPrivate bool
	// Proxy is the operator's outbound proxy (EARSHOT_OUTBOUND_PROXY) for
	// platform APIs, feeds and review pages; nil connects directly.
	Proxy *url.URL
}

// NewPlatformClient returns the client serve gives NewRegistry for the
// platform APIs: the origins cfg configures (base URL overrides, Mastodon
// instances) are reached as written, any other host a platform redirects
// or links to only through the webhook guard (netguard.NewPlatformClient).
func NewPlatformClient(cfg Config, timeout time.Duration) *http.Client {
	c := netguard.NewPlatformClient(cfg.AllowPrivate, timeout, cfg.origins())
	netguard.UseProxy(c, cfg.Proxy, cfg.AllowPrivate, cfg.origins())
	return c
}

// origins are the "host:port" of every platform URL the operator set.
// The platforms' defaults are not listed: they are public hosts, which the
// guard lets through anyway.
func (c Config) origins() []string {
	urls := []string{c.X.BaseURL, c.Reddit.BaseURL, c.Reddit.OAuthBaseURL, c.YouTube.BaseURL, c.LinkedIn.BaseURL,
		c.Threads.BaseURL, c.Bluesky.BaseURL, c.HN.BaseURL, c.News.GoogleNewsBaseURL, c.News.GDELTBaseURL,
		c.Reviews.AppStoreBaseURL, c.Reviews.TrustpilotBaseURL, c.GitHub.BaseURL, c.StackOverflow.BaseURL, c.Devto.BaseURL}
	// Discourse forums are the operator's own list (EARSHOT_DISCOURSE_FORUMS),
	// reached as configured like a Mastodon instance.
	urls = append(urls, ParseDiscourseForums(c.Discourse.Forums)...)
	if insts, err := ParseMastodonInstances(c.Mastodon.Instances); err == nil {
		for _, in := range insts {
			urls = append(urls, in.BaseURL)
		}
	}
	var out []string
	for _, u := range urls {
		if o := netguard.Origin(u); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// Registry holds one collector per source.
type Registry struct {
	byName map[string]Collector
}

// NewRegistry builds every collector (one per vocab.Sources entry) from cfg.
// client is shared by every collector (nil: http.DefaultClient).
func NewRegistry(cfg Config, client *http.Client) *Registry {
	// feed_urls and review pages come from users: they are read through
	// the webhook address guard, lifted by the same development switch.
	userClient := NewUserURLClient(cfg.AllowPrivate)
	netguard.UseProxy(userClient, cfg.Proxy, cfg.AllowPrivate, nil)
	cfg.X.Client, cfg.Reddit.Client, cfg.YouTube.Client, cfg.LinkedIn.Client, cfg.Threads.Client = client, client, client, client, client
	cfg.Bluesky.Client, cfg.Mastodon.Client, cfg.HN.Client = client, client, client
	cfg.News.Client, cfg.News.FeedClient = client, userClient
	cfg.Reviews.Client, cfg.Reviews.PageClient = client, userClient
	cfg.GitHub.Client, cfg.StackOverflow.Client, cfg.Discourse.Client, cfg.Devto.Client = client, client, client, client
	all := []Collector{
		NewX(cfg.X), NewReddit(cfg.Reddit), NewYouTube(cfg.YouTube), NewLinkedIn(cfg.LinkedIn), NewThreads(cfg.Threads),
		NewBluesky(cfg.Bluesky), NewMastodon(cfg.Mastodon), NewHN(cfg.HN), NewNews(cfg.News), NewReviews(cfg.Reviews),
		NewGitHub(cfg.GitHub), NewStackOverflow(cfg.StackOverflow), NewDiscourse(cfg.Discourse), NewDevto(cfg.Devto),
	}
	r := &Registry{byName: map[string]Collector{}}
	for _, c := range all {
		r.byName[c.Source()] = c
	}
	return r
}

// Get returns the collector of one source ("x", "reddit", …).
func (r *Registry) Get(source string) (Collector, bool) {
	c, ok := r.byName[source]
	return c, ok
}

// All returns every collector in vocab.Sources order.
func (r *Registry) All() []Collector {
	out := make([]Collector, 0, len(r.byName))
	for _, s := range vocab.Sources {
		if c, ok := r.byName[s]; ok {
			out = append(out, c)
		}
	}
	return out
}

// DemoConfig is the collectors' configuration in `earshot demo`: every
// source, and every sub-service (GDELT, App Store, Trustpilot, Reddit
// OAuth), points at replayURL + "/<source>", served by replay.NewHandler, and
// every source has a placeholder credential so it runs. The demo monitors'
// feed and review URLs are on the replay server, a loopback address, so the
// user-URL guard is lifted (AllowPrivate) as for any local development;
// metadata addresses stay refused. Nothing is read from the environment.
// blueskyHandle is the demo's Bluesky login: the demo passes what its
// replay server knows, so production code does not import the demo.
func DemoConfig(replayURL, blueskyHandle string) Config {
	base := strings.TrimRight(replayURL, "/")
	return Config{
		X:             XConfig{BaseURL: base + "/x", BearerToken: "demo-token"},
		Reddit:        RedditConfig{BaseURL: base + "/reddit", OAuthBaseURL: base + "/reddit"},
		YouTube:       YouTubeConfig{BaseURL: base + "/youtube", APIKey: "demo-key"},
		LinkedIn:      LinkedInConfig{BaseURL: base + "/linkedin", AccessToken: "demo-token"},
		Threads:       ThreadsConfig{BaseURL: base + "/threads", AccessToken: "demo-token"},
		Bluesky:       BlueskyConfig{BaseURL: base + "/bluesky", Handle: blueskyHandle, AppPassword: "demo-app-password"},
		Mastodon:      MastodonConfig{Instances: base + "/mastodon=demo-token"},
		HN:            HNConfig{BaseURL: base + "/hn"},
		News:          NewsConfig{GoogleNewsBaseURL: base + "/news", GDELTBaseURL: base + "/news"},
		Reviews:       ReviewsConfig{AppStoreBaseURL: base + "/reviews", TrustpilotBaseURL: base + "/reviews", TrustpilotAPIKey: "demo-key"},
		GitHub:        GitHubConfig{BaseURL: base + "/github", Token: "demo-token"}, // the token turns on the discussions search
		StackOverflow: StackOverflowConfig{BaseURL: base + "/stackoverflow/2.3"},
		Discourse:     DiscourseConfig{Forums: base + "/discourse"},
		Devto:         DevtoConfig{BaseURL: base + "/devto/api"},
		AllowPrivate:  true,
	}
}
