package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"earshot/capability"
	"earshot/classify"
	"earshot/collect"
	"earshot/deliver"
	"earshot/internal/replay"
	"earshot/internal/workers"
	"earshot/metrics"
	"earshot/server"
	"earshot/spike"
	"earshot/store"
)

// decodeMap decodes a Go map as a capability input, with the same validation
// as REST and MCP.
func decodeMap(c *capability.Capability, body map[string]any) (any, error) {
	values := map[string]json.RawMessage{}
	for k, v := range body {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		values[k] = raw
	}
	return c.Decode(values, nil)
}

func serveFlags(name string, stderr io.Writer, getenv func(string) string, cfg *Config) *cliFlags {
	fs := newFlags(name, stderr, getenv, cfg)
	fs.checkedVar(&cfg.Addr, "addr", "EARSHOT_ADDR", "127.0.0.1:8080", "listen `address`, host:port", parseAddr)
	fs.checkedVar(&cfg.BaseURL, "base-url", "EARSHOT_BASE_URL", "", "public base `URL` (default http://{addr})", parseHTTPURL)
	fs.checkedVar(&cfg.DocsURL, "docs-url", "EARSHOT_DOCS_URL", "", "docs `URL` (default {base-url}/docs)", parseHTTPURL)
	checkedVar(fs, &cfg.RateLimit, "rate-limit", "EARSHOT_RATE_LIMIT", 50, "`requests` per second per credential, REST, /mcp and the dashboard alike (an export counts 20, a preview 10, statistics 5)", parsePositiveFloat)
	checkedVar(fs, &cfg.RateBurst, "rate-burst", "EARSHOT_RATE_BURST", 100, "API burst per credential, in `requests`", parsePositiveInt)
	checkedVar(fs, &cfg.ReadTimeout, "read-timeout", "EARSHOT_READ_TIMEOUT", defaultReadTimeout,
		"longest `duration` a client may take to send one request, headers and body; a slower one is cut off", parsePositiveDuration)
	checkedVar(fs, &cfg.TrustedProxies, "trusted-proxies", "EARSHOT_TRUSTED_PROXIES", server.TrustedProxies{},
		"comma-separated `CIDRs` or addresses of the reverse proxies whose X-Forwarded-For, Forwarded and X-Forwarded-Proto are believed (default: none, the connection's address is the client)", parseTrustedProxies)
	fs.checkedVar(&cfg.MetricsToken, "metrics-token", "EARSHOT_METRICS_TOKEN", "",
		"bearer `token` that GET /metrics asks for (default: /metrics is open)", func(s string) (string, error) { return s, nil })
	mcpFlags(fs, cfg)
	if name == "demo" {
		// The demo's data dir is a new temporary directory unless given.
		f := fs.Lookup("data")
		f.DefValue = ""
		f.Usage = "data `directory` (default: a new temporary directory; it must not hold a database yet)" + f.Usage[strings.Index(f.Usage, " ("):]
	}
	return fs
}

// HTTP server timeouts. ReadHeaderTimeout and ReadTimeout are per request
// (they restart for each request of a kept-alive connection), so a client
// that dribbles a header or a body one byte at a time is cut off instead of
// holding a connection and a goroutine; IdleTimeout closes kept-alive
// connections nobody uses. There is no WriteTimeout: a CSV export of a
// large project streams for as long as it takes.
const (
	defaultReadTimeout = 30 * time.Second
	readHeaderTimeout  = 10 * time.Second
	idleTimeout        = 120 * time.Second
)

// newHTTPServer is the listener's http.Server with the timeouts above.
func newHTTPServer(h http.Handler, readTimeout time.Duration) *http.Server {
	if readTimeout <= 0 {
		readTimeout = defaultReadTimeout
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: min(readHeaderTimeout, readTimeout), ReadTimeout: readTimeout, IdleTimeout: idleTimeout}
}

// listen opens the serve address; a port in use gets a message that says
// how to pick another one rather than the bare bind error.
func listen(addr, command string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, usagef("%s is already in use (another earshot or another program listens there): "+
			"pick another port with --addr, e.g. earshot %s --addr 127.0.0.1:8081 (or EARSHOT_ADDR=127.0.0.1:8081), or --addr 127.0.0.1:0 for any free port", addr, command)
	}
	return ln, err
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, demo bool) error {
	var cfg Config
	name := "serve"
	if demo {
		name = "demo"
	}
	fs := serveFlags(name, stderr, getenv, &cfg)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkDatabaseURL(cfg.DatabaseURL, "--database-url / EARSHOT_DATABASE_URL"); err != nil {
		return err
	}
	if err := readServeEnv(&cfg, getenv); err != nil {
		return err // a bad setting stops serve before it listens
	}
	if demo {
		cfg.Backups.Every = 0 // the demo's data is thrown away
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// The address first: a busy port must fail before anything is created.
	ln, err := listen(cfg.Addr, name)
	if err != nil {
		return err
	}
	var replayURL string
	serving := false
	if demo {
		// A fresh data dir, and every collector pointed at a local server
		// replaying recorded platform responses: no credentials, no network.
		if !fs.isSet("data") && cfg.DatabaseURL == "" {
			d, err := os.MkdirTemp("", "earshot-demo-")
			if err != nil {
				ln.Close()
				return err
			}
			cfg.DataDir = d
			// A demo that fails before it serves leaves no temp dir behind.
			defer func() {
				if !serving {
					os.RemoveAll(d)
				}
			}()
		}
		if cfg.DatabaseURL != "" {
			// On PostgreSQL the demo's fresh database is a new schema,
			// dropped when the demo stops.
			u, drop, err := store.NewSchema(ctx, cfg.DatabaseURL, "earshot_demo_")
			if err != nil {
				ln.Close()
				return err
			}
			defer drop()
			cfg.DatabaseURL = u
		} else if _, err := os.Stat(filepath.Join(cfg.DataDir, store.FileName)); err == nil {
			ln.Close()
			return usagef("demo needs a fresh data dir; %s already holds a database (use serve, or another --data)", cfg.DataDir)
		}
	}
	if demo || cfg.Replay {
		// EARSHOT_REPLAY=1 gives serve the demo's collectors: every platform
		// answered from the recorded responses by a loopback server, so the
		// end-to-end tests run the real collectors without any network.
		rln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ln.Close()
			return err
		}
		rs := &http.Server{Handler: replay.NewHandler(), ReadHeaderTimeout: 10 * time.Second}
		go rs.Serve(rln)
		defer rs.Close()
		replayURL = "http://" + rln.Addr().String()
		cfg.Collectors = demoCollectors(replayURL)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + ln.Addr().String()
	}
	if cfg.DocsURL == "" {
		cfg.DocsURL = strings.TrimRight(cfg.BaseURL, "/") + "/docs"
	}
	newDataDir := false
	if cfg.DatabaseURL == "" {
		_, err := os.Stat(filepath.Join(cfg.DataDir, store.FileName))
		newDataDir = errors.Is(err, iofs.ErrNotExist)
	}
	svc, closeStore, err := createOrOpenService(ctx, &cfg, stderr)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeStore()
	log := svc.Log
	if cfg.DatabaseURL == "" {
		// The absolute path, so an operator sees which directory a
		// relative --data (or a service's working directory) meant, and
		// an empty one is announced: a mistyped path or a lost volume
		// mount shows in the log instead of as an empty dashboard.
		dir, _ := filepath.Abs(cfg.DataDir)
		if newDataDir {
			log.Info("created new data dir", "path", dir)
		} else {
			log.Info("data dir", "path", dir)
		}
	}
	if smtpURL := cfg.SMTPURL; smtpURL != "" {
		// Invitations are emailed too; the link is also shown to the inviter.
		svc.SendEmail = func(ctx context.Context, to, subject, body string) error {
			return deliver.SendEmail(ctx, smtpURL, to, subject, body)
		}
	}
	reg := metrics.New()
	// Background workers report their health here; /healthz and /metrics
	// show a failing or lagging one as degraded.
	wreg := workers.New()
	srv := server.New(svc, reg, server.Options{RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst, MetricsToken: cfg.MetricsToken,
		TrustedProxies: cfg.TrustedProxies, Workers: wreg, Version: buildInfo().serverVersion(), MCPToolsets: cfg.MCPToolsets, MCPReadOnly: cfg.MCPReadOnly})
	var info *DemoInfo
	if demo {
		if info, err = prepareDemo(ctx, svc, replayURL); err != nil {
			ln.Close()
			return err
		}
	}
	app, err := startBackground(ctx, &cfg, svc, srv, reg, wreg)
	if err != nil {
		ln.Close()
		return err
	}
	hs := newHTTPServer(srv, cfg.ReadTimeout)
	serving = true
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("earshot listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "backend", svc.Store.Backend(), "database", svc.Store.Path(),
		"trusted_proxies", cfg.TrustedProxies.String())
	if demo {
		if cfg.DatabaseURL != "" {
			fmt.Fprintf(stdout, "Database: %s (a schema dropped when the demo stops)\n", svc.Store.Path())
		} else {
			fmt.Fprintf(stdout, "Data dir: %s\n", cfg.DataDir)
		}
		printDemo(stdout, info)
		fmt.Fprintf(stdout, "\nStop with Ctrl-C.\n")
	} else {
		if cfg.LogFormat != "json" {
			// For people; with JSON logs every stderr line is an object
			// (the "earshot listening" line says the same).
			fmt.Fprintf(stderr, "earshot %s serving on %s\n", buildInfo().Version, cfg.BaseURL)
		}
		announceSetup(ctx, svc, log, cfg.BaseURL)
	}
	select {
	case err := <-errc:
		app.stop()
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		log.Error("shutdown", "err", err)
	}
	if !svc.WaitMail(shutCtx) {
		log.Warn("shutdown: emails still being sent were abandoned")
	}
	app.stop()
	log.Info("stopped cleanly")
	return nil
}

// background holds the goroutines serve runs beside HTTP.
type background struct {
	cancel context.CancelFunc
	done   []chan struct{}
}

func (b *background) stop() {
	if b == nil {
		return
	}
	b.cancel()
	for _, d := range b.done {
		<-d
	}
}

func (b *background) goRun(ctx context.Context, fn func(ctx context.Context)) {
	d := make(chan struct{})
	b.done = append(b.done, d)
	go func() {
		defer close(d)
		fn(ctx)
	}()
}

// startBackground starts what serve runs beside HTTP: the collector
// scheduler, the webhook/alert delivery worker and housekeeping. Their state
// lives in the database (leases), so several instances could share the work.
//
// None of them stops for good on an error: each failed round is recorded
// in wreg, logged and retried with a capped backoff (package workers).
func startBackground(ctx context.Context, cfg *Config, svc *capability.Service, srv *server.Server, reg *metrics.Registry, wreg *workers.Registry) (*background, error) {
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b := &background{cancel: cancel}
	log := svc.Log

	cls, err := classify.New(cfg.Classifier) // auto asks a local Ollama once, here
	if err != nil {
		cancel()
		return nil, err
	}
	if st := classify.Describe(cls); st.Detail != "" {
		log.Info("classifier", "active", st.Active, "mode", st.Mode, "detail", st.Detail)
	} else {
		log.Info("classifier", "active", st.Active, "mode", st.Mode)
	}
	srv.ClassifierStatus = func(detail bool) any { return classify.Describe(cls).View(detail) }
	registry := collect.NewRegistry(cfg.Collectors, collect.NewPlatformClient(cfg.Collectors, 60*time.Second))
	sched := collect.NewScheduler(svc.Store, registry, cls, collect.SchedulerConfig{
		Lease:    cfg.ScanLease,
		Ledger:   svc.Store.QuotaLedger(),
		Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota},
		Worker:   wreg.Worker("scheduler"),
	}, log, reg)
	svc.MonitorChanged = sched.MonitorChanged
	b.goRun(bctx, func(ctx context.Context) {
		if err := sched.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("scheduler stopped", "err", err)
		}
	})

	worker := deliver.NewWorker(svc.Store, deliver.WorkerConfig{
		AllowPrivate: cfg.AllowPrivateWebhooks, Proxy: cfg.OutboundProxy, Schedule: cfg.WebhookSchedule, SMTPURL: cfg.SMTPURL, BaseURL: cfg.BaseURL,
		Timeout: cfg.WebhookTimeout, Worker: wreg.Worker("delivery"),
	}, log, reg)
	b.goRun(bctx, func(ctx context.Context) {
		if err := worker.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("delivery worker stopped", "err", err)
		}
	})

	if cfg.Spikes.Interval > 0 {
		spikes := &spike.Runner{Store: svc.Store, Params: cfg.Spikes.Params, Interval: cfg.Spikes.Interval, Log: log, Metrics: reg,
			Worker: wreg.Worker("spikes")}
		b.goRun(bctx, func(ctx context.Context) { spikes.Run(ctx) })
	}

	b.goRun(bctx, func(ctx context.Context) { svc.Store.RunCheckpointer(ctx, time.Second) })
	startScheduledBackups(b, bctx, cfg, svc.Store, log)
	b.goRun(bctx, func(ctx context.Context) {
		// Retried until it succeeds (an ingest also builds the index when
		// it finds it cold, so a failure here only costs that ingest time).
		workers.Retry(ctx, wreg.Worker("story_index"), log, svc.Store.WarmStories)
	})
	if svc.Store.Backend() == "sqlite" { // PostgreSQL indexes at insert
		b.goRun(bctx, func(ctx context.Context) {
			svc.Store.RunSearchIndexer(ctx, 500*time.Millisecond, wreg.Worker("search_indexer"), log)
		})
	}
	b.goRun(bctx, func(ctx context.Context) {
		workers.Loop(ctx, wreg.Worker("purge"), log, time.Hour, svc.Store.PurgeExpired)
	})
	return b, nil
}

// envDuration reads an optional duration variable of at least least (0 when
// unset: the component's default).
func envDuration(getenv func(string) string, key string, least time.Duration) (time.Duration, error) {
	v := getenv(key)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < least {
		return 0, usagef("invalid value %q for %s: must be a duration of at least %s, like 5m", v, key, least)
	}
	return d, nil
}

// demoCollectors points every collector at the demo's replay server, with
// the demo's Bluesky login.
func demoCollectors(replayURL string) collect.Config {
	return collect.DemoConfig(replayURL, replay.BlueskyHandle)
}
