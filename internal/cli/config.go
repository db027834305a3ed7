package cli

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"earshot/classify"
	"earshot/collect"
	"earshot/deliver"
	"earshot/netguard"
	"earshot/spike"
)

// The settings below come only from the environment (no flag). Each is read
// here, once, into Config; the packages get the parsed structs and read no
// variable themselves.

// readServeEnv fills the settings serve and demo read from the environment
// besides their flags. A bad value is a usage error naming the variable,
// before anything is listened on or created.
func readServeEnv(cfg *Config, getenv func(string) string) error {
	var err error
	if cfg.AllowPrivateWebhooks, err = envSwitch(getenv, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS"); err != nil {
		return err
	}
	if cfg.Replay, err = envSwitch(getenv, "EARSHOT_REPLAY"); err != nil {
		return err
	}
	if cfg.Classifier, err = classifierConfig(getenv); err != nil {
		return usagef("invalid value for %v", err)
	}
	if cfg.Spikes, err = spikeConfig(getenv); err != nil {
		return usagef("invalid value for %v", err)
	}
	cfg.WebhookSchedule = deliver.DefaultSchedule
	if v := getenv("EARSHOT_WEBHOOK_SCHEDULE"); v != "" {
		if cfg.WebhookSchedule, err = deliver.ParseSchedule(v); err != nil {
			return usagef("invalid value for EARSHOT_WEBHOOK_SCHEDULE: %v", err)
		}
	}
	cfg.SMTPURL = getenv("EARSHOT_SMTP_URL")
	if cfg.Backups, err = backupConfig(getenv); err != nil {
		return err
	}
	if cfg.ScanLease, err = envDuration(getenv, "EARSHOT_SCAN_LEASE", 5*time.Second); err != nil {
		return err
	}
	if cfg.WebhookTimeout, err = envDuration(getenv, "EARSHOT_WEBHOOK_TIMEOUT", time.Second); err != nil {
		return err
	}
	if cfg.SessionIdle, err = sessionIdle(getenv); err != nil {
		return err
	}
	// The user-URL guard of feeds and review pages is lifted by the same
	// development switch as webhooks'.
	cfg.Collectors = collectorConfig(getenv, cfg.AllowPrivateWebhooks)
	if cfg.OutboundProxy, err = netguard.ParseProxy(getenv("EARSHOT_OUTBOUND_PROXY")); err != nil {
		return usagef("invalid value for EARSHOT_OUTBOUND_PROXY: %v", err)
	}
	cfg.Collectors.Proxy = cfg.OutboundProxy
	// Fault tests only: both variables, so a stray one cannot kill a
	// production serve.
	if getenv("EARSHOT_TEST_HOOKS") == "1" {
		cfg.CrashAt = getenv("EARSHOT_TEST_CRASH_AFTER")
	}
	return nil
}

// collectorVars binds every collector variable to its field of c. Every
// source's API host can be overridden with EARSHOT_<SOURCE>_BASE_URL, so
// tests point the real collectors at local servers.
func collectorVars(c *collect.Config) []struct {
	name string
	dst  *string
} {
	return []struct {
		name string
		dst  *string
	}{
		{"EARSHOT_HN_BASE_URL", &c.HN.BaseURL},
		{"EARSHOT_REDDIT_BASE_URL", &c.Reddit.BaseURL},
		{"EARSHOT_REDDIT_OAUTH_BASE_URL", &c.Reddit.OAuthBaseURL},
		{"EARSHOT_REDDIT_CLIENT_ID", &c.Reddit.ClientID},
		{"EARSHOT_REDDIT_CLIENT_SECRET", &c.Reddit.ClientSecret},
		{"EARSHOT_REDDIT_USER_AGENT", &c.Reddit.UserAgent},
		{"EARSHOT_YOUTUBE_BASE_URL", &c.YouTube.BaseURL},
		{"EARSHOT_YOUTUBE_API_KEY", &c.YouTube.APIKey},
		{"EARSHOT_X_BASE_URL", &c.X.BaseURL},
		{"EARSHOT_X_BEARER_TOKEN", &c.X.BearerToken},
		{"EARSHOT_THREADS_BASE_URL", &c.Threads.BaseURL},
		{"EARSHOT_THREADS_ACCESS_TOKEN", &c.Threads.AccessToken},
		{"EARSHOT_LINKEDIN_BASE_URL", &c.LinkedIn.BaseURL},
		{"EARSHOT_LINKEDIN_ACCESS_TOKEN", &c.LinkedIn.AccessToken},
		{"EARSHOT_LINKEDIN_VERSION", &c.LinkedIn.Version},
		{"EARSHOT_NEWS_BASE_URL", &c.News.GoogleNewsBaseURL},
		{"EARSHOT_GDELT_BASE_URL", &c.News.GDELTBaseURL},
		{"EARSHOT_APPSTORE_BASE_URL", &c.Reviews.AppStoreBaseURL},
		{"EARSHOT_TRUSTPILOT_BASE_URL", &c.Reviews.TrustpilotBaseURL},
		{"EARSHOT_TRUSTPILOT_API_KEY", &c.Reviews.TrustpilotAPIKey},
		{"EARSHOT_BLUESKY_BASE_URL", &c.Bluesky.BaseURL},
		{"EARSHOT_BLUESKY_HANDLE", &c.Bluesky.Handle},
		{"EARSHOT_BLUESKY_APP_PASSWORD", &c.Bluesky.AppPassword},
		{"EARSHOT_BLUESKY_JETSTREAM_URL", &c.Bluesky.JetstreamURL},
		{"EARSHOT_MASTODON_INSTANCES", &c.Mastodon.Instances}, // see collect.ParseMastodonInstances
		{"EARSHOT_GITHUB_BASE_URL", &c.GitHub.BaseURL},
		{"EARSHOT_GITHUB_TOKEN", &c.GitHub.Token},
		{"EARSHOT_STACKEXCHANGE_BASE_URL", &c.StackOverflow.BaseURL},
		{"EARSHOT_STACKEXCHANGE_KEY", &c.StackOverflow.Key},
		{"EARSHOT_STACKEXCHANGE_SITES", &c.StackOverflow.Sites},
		{"EARSHOT_DISCOURSE_FORUMS", &c.Discourse.Forums},
		{"EARSHOT_DEVTO_BASE_URL", &c.Devto.BaseURL},
		{"EARSHOT_DEVTO_TAGS", &c.Devto.Tags},
	}
}

// collectorConfig reads the platforms' credentials and base URLs (white
// space around a value is dropped, as a pasted token often has it).
func collectorConfig(getenv func(string) string, allowPrivate bool) collect.Config {
	c := collect.Config{AllowPrivate: allowPrivate}
	for _, v := range collectorVars(&c) {
		*v.dst = strings.TrimSpace(getenv(v.name))
	}
	return c
}

// classifierConfig reads the classifier EARSHOT_CLASSIFIER names ("auto",
// the default, "builtin" or "ollama") and its Ollama settings: OLLAMA_HOST,
// EARSHOT_OLLAMA_MODEL, EARSHOT_OLLAMA_TIMEOUT (a Go duration),
// EARSHOT_OLLAMA_CONCURRENCY, EARSHOT_OLLAMA_RETRIES,
// EARSHOT_OLLAMA_BREAKER_COOLDOWN (a Go duration),
// EARSHOT_OLLAMA_PRICE_PER_1K_INPUT and _OUTPUT, and
// EARSHOT_OLLAMA_DETECT_TIMEOUT (how long auto asks Ollama, default 2s).
func classifierConfig(getenv func(string) string) (cfg classify.Config, err error) {
	cfg.Kind = strings.ToLower(strings.TrimSpace(getenv("EARSHOT_CLASSIFIER")))
	switch cfg.Kind {
	case "":
		cfg.Kind = "auto"
	case "auto", "builtin", "ollama":
	default:
		return cfg, fmt.Errorf("EARSHOT_CLASSIFIER: unknown classifier %q (want auto, builtin or ollama)", cfg.Kind)
	}
	if cfg.Kind == "builtin" {
		return cfg, nil
	}
	o := &cfg.Ollama
	o.Host, o.Model = getenv("OLLAMA_HOST"), getenv("EARSHOT_OLLAMA_MODEL")
	if h := strings.TrimSpace(o.Host); h != "" {
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		if u, err := url.Parse(h); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return cfg, fmt.Errorf("OLLAMA_HOST: want host[:port] or an http(s) URL, got %q", o.Host)
		}
	}
	if o.PricePer1KInput, err = envFloat(getenv, "EARSHOT_OLLAMA_PRICE_PER_1K_INPUT"); err != nil {
		return cfg, err
	}
	if o.PricePer1KOutput, err = envFloat(getenv, "EARSHOT_OLLAMA_PRICE_PER_1K_OUTPUT"); err != nil {
		return cfg, err
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"EARSHOT_OLLAMA_TIMEOUT", &o.Timeout}, {"EARSHOT_OLLAMA_BREAKER_COOLDOWN", &o.BreakerCooldown}, {"EARSHOT_OLLAMA_DETECT_TIMEOUT", &cfg.DetectTimeout}} {
		if v := getenv(d.name); v != "" {
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst <= 0 {
				return cfg, fmt.Errorf("%s: want a positive duration such as 30s, got %q", d.name, v)
			}
		}
	}
	if o.Concurrency, err = envInt(getenv, "EARSHOT_OLLAMA_CONCURRENCY"); err != nil {
		return cfg, err
	}
	if v := getenv("EARSHOT_OLLAMA_RETRIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("EARSHOT_OLLAMA_RETRIES: want a whole number ≥ 0, got %q", v)
		}
		o.Retries = n
		if n == 0 {
			o.Retries = -1 // none; the zero value means the default
		}
	}
	return cfg, nil
}

func envFloat(getenv func(string) string, name string) (float64, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%s: want a number ≥ 0, got %q", name, v)
	}
	return f, nil
}

func envInt(getenv func(string) string, name string) (int, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s: want a whole number > 0, got %q", name, v)
	}
	return n, nil
}

// spikeSettings is spike detection's configuration; Interval 0 means off.
type spikeSettings struct {
	Interval time.Duration
	Params   spike.Params
}

// spikeConfig reads EARSHOT_SPIKE_INTERVAL (how often detection runs,
// default 5m; 0 turns it off), EARSHOT_SPIKE_MIN_COUNT and
// EARSHOT_SPIKE_MIN_NEGATIVE (the fewest mentions in an hour for a volume
// or a negative spike).
func spikeConfig(getenv func(string) string) (spikeSettings, error) {
	s := spikeSettings{Interval: 5 * time.Minute}
	if v := getenv("EARSHOT_SPIKE_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return s, fmt.Errorf("EARSHOT_SPIKE_INTERVAL: %q is not a duration like 5m (0 turns detection off)", v)
		}
		s.Interval = d
		if d == 0 {
			return s, nil // off: the thresholds are not used
		}
	}
	for _, e := range []struct {
		name string
		dst  *int
	}{{"EARSHOT_SPIKE_MIN_COUNT", &s.Params.MinCount}, {"EARSHOT_SPIKE_MIN_NEGATIVE", &s.Params.MinNegative}} {
		if v := getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000000 {
				return s, fmt.Errorf("%s: %q is not a whole number from 1", e.name, v)
			}
			*e.dst = n
		}
	}
	return s, nil
}

// sessionIdle reads EARSHOT_SESSION_IDLE: how long an unused dashboard or
// API session lives (default capability.DefaultSessionIdle, 12 h; at least
// a minute, since use is recorded once a minute; "off" for no idle limit,
// leaving only the absolute 30 days).
func sessionIdle(getenv func(string) string) (time.Duration, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("EARSHOT_SESSION_IDLE")), "off") {
		return -1, nil
	}
	return envDuration(getenv, "EARSHOT_SESSION_IDLE", time.Minute)
}
