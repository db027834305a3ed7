package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"earshot/metrics"
	"earshot/server"
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
	checkedVar(fs, &cfg.RateLimit, "rate-limit", "EARSHOT_RATE_LIMIT", 50, "API `requests` per second per credential", parsePositiveFloat)
	checkedVar(fs, &cfg.RateBurst, "rate-burst", "EARSHOT_RATE_BURST", 100, "API burst per credential, in `requests`", parsePositiveInt)
	return fs
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
	allow, err := envSwitch(getenv, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS")
	if err != nil {
		return err
	}
	cfg.AllowPrivateWebhooks = allow
	if _, err := classify.FromEnv(getenv); err != nil {
		return usagef("invalid value for %v", err) // a bad classifier setting stops serve before it listens
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	var collectorEnv func(string) string
	var replayURL string
	if demo {
		// A fresh data dir, and every collector pointed at a local server
		// replaying recorded platform responses: no credentials, no network.
		if !fs.isSet("data") {
			d, err := os.MkdirTemp("", "earshot-demo-")
			if err != nil {
				return err
			}
			cfg.DataDir = d
		}
		if _, err := os.Stat(filepath.Join(cfg.DataDir, store.FileName)); err == nil {
			return usagef("demo needs a fresh data dir; %s already holds a database (use serve, or another --data)", cfg.DataDir)
		}
		rln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		replay := &http.Server{Handler: collect.NewReplayHandler(), ReadHeaderTimeout: 10 * time.Second}
		go replay.Serve(rln)
		defer replay.Close()
		replayURL = "http://" + rln.Addr().String()
		collectorEnv = demoEnv(replayURL)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + ln.Addr().String()
	}
	if cfg.DocsURL == "" {
		cfg.DocsURL = strings.TrimRight(cfg.BaseURL, "/") + "/docs"
	}
	svc, closeStore, err := createOrOpenService(ctx, &cfg, stderr)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeStore()
	log := svc.Log
	reg := metrics.New()
	srv := server.New(svc, reg, server.Options{RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst})
	var info *DemoInfo
	if demo {
		if info, err = prepareDemo(ctx, svc, replayURL); err != nil {
			ln.Close()
			return err
		}
	}
	app, err := startBackground(ctx, &cfg, svc, srv, reg, collectorEnv)
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("earshot listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "data", cfg.DataDir)
	if demo {
		fmt.Fprintf(stdout, "Data dir: %s\n", cfg.DataDir)
		printDemo(stdout, info)
		fmt.Fprintf(stdout, "\nStop with Ctrl-C.\n")
	} else {
		fmt.Fprintf(stderr, "earshot %s serving on %s\n", Version, cfg.BaseURL)
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
func startBackground(ctx context.Context, cfg *Config, svc *capability.Service, srv *server.Server, reg *metrics.Registry, collectorEnv func(string) string) (*background, error) {
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b := &background{cancel: cancel}
	log := svc.Log
	getenv := cfg.Getenv

	cls, err := classify.FromEnv(getenv)
	if err != nil {
		cancel()
		return nil, err
	}
	if collectorEnv == nil {
		collectorEnv = getenv
	}
	registry := collect.NewRegistry(collectorEnv, &http.Client{Timeout: 60 * time.Second})
	sched := collect.NewScheduler(svc.Store, registry, cls, collect.SchedulerConfig{
		Ledger:   svc.Store.QuotaLedger(),
		Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota},
	}, log, reg)
	svc.MonitorChanged = sched.MonitorChanged
	b.goRun(bctx, func(ctx context.Context) {
		if err := sched.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("scheduler stopped", "err", err)
		}
	})

	schedule := deliver.DefaultSchedule
	if v := getenv("EARSHOT_WEBHOOK_SCHEDULE"); v != "" {
		if schedule, err = deliver.ParseSchedule(v); err != nil {
			cancel()
			return nil, fmt.Errorf("EARSHOT_WEBHOOK_SCHEDULE: %w", err)
		}
	}
	worker := deliver.NewWorker(svc.Store, deliver.WorkerConfig{
		AllowPrivate: cfg.AllowPrivateWebhooks, Schedule: schedule, SMTPURL: getenv("EARSHOT_SMTP_URL"), BaseURL: cfg.BaseURL,
	}, log, reg)
	b.goRun(bctx, func(ctx context.Context) {
		if err := worker.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("delivery worker stopped", "err", err)
		}
	})

	spikes, err := spikeRunner(svc.Store, getenv, log)
	if err != nil {
		cancel()
		return nil, err
	}
	if spikes != nil {
		b.goRun(bctx, func(ctx context.Context) { spikes.Run(ctx) })
	}

	b.goRun(bctx, func(ctx context.Context) { svc.Store.RunCheckpointer(ctx, time.Second) })
	b.goRun(bctx, func(ctx context.Context) {
		if err := svc.Store.RunSearchIndexer(ctx, 500*time.Millisecond); err != nil {
			log.Error("search indexer stopped", "err", err)
		}
	})
	b.goRun(bctx, func(ctx context.Context) {
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			if err := svc.Store.PurgeExpired(ctx); err != nil && ctx.Err() == nil {
				log.Warn("purge expired", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return b, nil
}
