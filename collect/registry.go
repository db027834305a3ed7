package collect

import (
	"earshot/vocab"
	"net/http"
	"strings"
)

// Env looks up one configuration value by name; os.Getenv fits, and tests
// and the demo pass their own.
type Env func(string) string

// Registry holds one collector per source, built from the environment.
type Registry struct {
	byName map[string]Collector
}

// Environment variables read by NewRegistry. Every source's API host can be
// overridden with EARSHOT_<SOURCE>_BASE_URL so tests and `earshot demo`
// point the real collectors at local servers.
const (
	EnvHNBaseURL          = "EARSHOT_HN_BASE_URL"
	EnvRedditBaseURL      = "EARSHOT_REDDIT_BASE_URL"
	EnvRedditOAuthBaseURL = "EARSHOT_REDDIT_OAUTH_BASE_URL"
	EnvRedditClientID     = "EARSHOT_REDDIT_CLIENT_ID"
	EnvRedditClientSecret = "EARSHOT_REDDIT_CLIENT_SECRET"
	EnvRedditUserAgent    = "EARSHOT_REDDIT_USER_AGENT"
	EnvYouTubeBaseURL     = "EARSHOT_YOUTUBE_BASE_URL"
	EnvYouTubeAPIKey      = "EARSHOT_YOUTUBE_API_KEY"
	EnvXBaseURL           = "EARSHOT_X_BASE_URL"
	EnvXBearerToken       = "EARSHOT_X_BEARER_TOKEN"
	EnvThreadsBaseURL     = "EARSHOT_THREADS_BASE_URL"
	EnvThreadsToken       = "EARSHOT_THREADS_ACCESS_TOKEN"
	EnvLinkedInBaseURL    = "EARSHOT_LINKEDIN_BASE_URL"
	EnvLinkedInToken      = "EARSHOT_LINKEDIN_ACCESS_TOKEN"
	EnvLinkedInVersion    = "EARSHOT_LINKEDIN_VERSION"
	EnvNewsBaseURL        = "EARSHOT_NEWS_BASE_URL" // Google News RSS
	EnvGDELTBaseURL       = "EARSHOT_GDELT_BASE_URL"
	EnvAppStoreBaseURL    = "EARSHOT_APPSTORE_BASE_URL"
	EnvTrustpilotBaseURL  = "EARSHOT_TRUSTPILOT_BASE_URL"
	EnvTrustpilotAPIKey   = "EARSHOT_TRUSTPILOT_API_KEY"
	EnvBlueskyBaseURL     = "EARSHOT_BLUESKY_BASE_URL"
	EnvBlueskyHandle      = "EARSHOT_BLUESKY_HANDLE"
	EnvBlueskyAppPassword = "EARSHOT_BLUESKY_APP_PASSWORD"
	EnvBlueskyJetstream   = "EARSHOT_BLUESKY_JETSTREAM_URL"
	EnvMastodonInstances  = "EARSHOT_MASTODON_INSTANCES" // see ParseMastodonInstances
)

// NewRegistry builds every collector (one per vocab.Sources entry) with credentials and base URLs
// from getenv. client is shared by every collector (nil: http.DefaultClient).
func NewRegistry(getenv Env, client *http.Client) *Registry {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	// feed_urls and review pages come from users: they are read through
	// the webhook address guard, lifted by the same development switch.
	userClient := NewUserURLClient(get(EnvAllowPrivate) == "1")
	all := []Collector{
		NewX(XConfig{BaseURL: get(EnvXBaseURL), BearerToken: get(EnvXBearerToken), Client: client}),
		NewReddit(RedditConfig{
			BaseURL:      get(EnvRedditBaseURL),
			OAuthBaseURL: get(EnvRedditOAuthBaseURL),
			ClientID:     get(EnvRedditClientID),
			ClientSecret: get(EnvRedditClientSecret),
			UserAgent:    get(EnvRedditUserAgent),
			Client:       client,
		}),
		NewYouTube(YouTubeConfig{BaseURL: get(EnvYouTubeBaseURL), APIKey: get(EnvYouTubeAPIKey), Client: client}),
		NewLinkedIn(LinkedInConfig{BaseURL: get(EnvLinkedInBaseURL), AccessToken: get(EnvLinkedInToken), Version: get(EnvLinkedInVersion), Client: client}),
		NewThreads(ThreadsConfig{BaseURL: get(EnvThreadsBaseURL), AccessToken: get(EnvThreadsToken), Client: client}),
		NewBluesky(BlueskyConfig{
			BaseURL:      get(EnvBlueskyBaseURL),
			Handle:       get(EnvBlueskyHandle),
			AppPassword:  get(EnvBlueskyAppPassword),
			JetstreamURL: get(EnvBlueskyJetstream),
			Client:       client,
		}),
		NewMastodon(MastodonConfig{Instances: get(EnvMastodonInstances), Client: client}),
		NewHN(HNConfig{BaseURL: get(EnvHNBaseURL), Client: client}),
		NewNews(NewsConfig{GoogleNewsBaseURL: get(EnvNewsBaseURL), GDELTBaseURL: get(EnvGDELTBaseURL), Client: client, FeedClient: userClient}),
		NewReviews(ReviewsConfig{
			AppStoreBaseURL:   get(EnvAppStoreBaseURL),
			TrustpilotBaseURL: get(EnvTrustpilotBaseURL),
			TrustpilotAPIKey:  get(EnvTrustpilotAPIKey),
			Client:            client,
			PageClient:        userClient,
		}),
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

// DemoEnv is the environment of `earshot demo`: every source, and every
// sub-service (GDELT, App Store, Trustpilot, Reddit OAuth), points at
// replayURL + "/<source>", served by NewReplayHandler, and every source has
// a placeholder credential so it runs. The demo monitors' feed and review
// URLs are on the replay server, a loopback address, so the user-URL guard
// is lifted (EnvAllowPrivate) as for any local development; metadata
// addresses stay refused. Nothing is read from the real environment.
func DemoEnv(replayURL string) Env {
	base := strings.TrimRight(replayURL, "/")
	values := map[string]string{
		EnvHNBaseURL:          base + "/hn",
		EnvRedditBaseURL:      base + "/reddit",
		EnvRedditOAuthBaseURL: base + "/reddit",
		EnvYouTubeBaseURL:     base + "/youtube",
		EnvYouTubeAPIKey:      "demo-key",
		EnvXBaseURL:           base + "/x",
		EnvXBearerToken:       "demo-token",
		EnvThreadsBaseURL:     base + "/threads",
		EnvThreadsToken:       "demo-token",
		EnvLinkedInBaseURL:    base + "/linkedin",
		EnvLinkedInToken:      "demo-token",
		EnvNewsBaseURL:        base + "/news",
		EnvGDELTBaseURL:       base + "/news",
		EnvAppStoreBaseURL:    base + "/reviews",
		EnvTrustpilotBaseURL:  base + "/reviews",
		EnvTrustpilotAPIKey:   "demo-key",
		EnvBlueskyBaseURL:     base + "/bluesky",
		EnvBlueskyHandle:      DemoBlueskyHandle,
		EnvBlueskyAppPassword: "demo-app-password",
		EnvMastodonInstances:  base + "/mastodon=demo-token",
		EnvAllowPrivate:       "1",
	}
	return func(name string) string { return values[name] }
}
