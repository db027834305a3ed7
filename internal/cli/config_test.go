package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"earshot/collect"
)

// A flag's EARSHOT_* variable is parsed and checked like the flag: a bad
// value exits 2 with a message naming where it came from, before anything
// is opened or listened on.
func TestBadConfigurationIsRefused(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"EARSHOT_RATE_LIMIT": "abc"}, []string{"serve"}, "EARSHOT_RATE_LIMIT"},
		{map[string]string{"EARSHOT_RATE_LIMIT": "-1"}, []string{"serve"}, "EARSHOT_RATE_LIMIT"},
		{map[string]string{"EARSHOT_RATE_LIMIT": "NaN"}, []string{"serve"}, "EARSHOT_RATE_LIMIT"},
		{map[string]string{"EARSHOT_CLASSIFIER": "ollama", "EARSHOT_OLLAMA_TIMEOUT": "soon"}, []string{"serve"}, "EARSHOT_OLLAMA_TIMEOUT"},
		{map[string]string{"EARSHOT_CLASSIFIER": "ollama", "OLLAMA_HOST": "ftp://x"}, []string{"serve"}, "OLLAMA_HOST"},
		{nil, []string{"serve", "--rate-limit", "abc"}, "-rate-limit"},
		{map[string]string{"EARSHOT_RATE_BURST": "many"}, []string{"serve"}, "EARSHOT_RATE_BURST"},
		{map[string]string{"EARSHOT_RATE_BURST": "0"}, []string{"demo"}, "EARSHOT_RATE_BURST"},
		{map[string]string{"EARSHOT_LOG_LEVEL": "loud"}, []string{"serve"}, "EARSHOT_LOG_LEVEL"},
		{nil, []string{"serve", "--log-level", "loud"}, "-log-level"},
		{nil, []string{"key", "list", "--project", "p", "--log-level", "loud"}, "-log-level"},
		{map[string]string{"EARSHOT_LOG_LEVEL": "loud"}, []string{"backup", "--to", "x.db"}, "EARSHOT_LOG_LEVEL"},
		{nil, []string{"serve", "--base-url", "notaurl"}, "-base-url"},
		{nil, []string{"serve", "--base-url", "ftp://example.com"}, "-base-url"},
		{map[string]string{"EARSHOT_BASE_URL": "example.com"}, []string{"serve"}, "EARSHOT_BASE_URL"},
		{nil, []string{"serve", "--docs-url", "/docs"}, "-docs-url"},
		{map[string]string{"EARSHOT_DOCS_URL": "http://"}, []string{"demo"}, "EARSHOT_DOCS_URL"},
		{map[string]string{"EARSHOT_ADDR": "8080"}, []string{"serve"}, "EARSHOT_ADDR"},
		{map[string]string{"EARSHOT_ALLOW_PRIVATE_WEBHOOKS": "yes"}, []string{"serve"}, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS"},
		{map[string]string{"EARSHOT_PLAN_QUOTAS": "starter"}, []string{"serve"}, "EARSHOT_PLAN_QUOTAS"},
		{map[string]string{"EARSHOT_SPIKE_INTERVAL": "often"}, []string{"serve"}, "EARSHOT_SPIKE_INTERVAL"},
		{map[string]string{"EARSHOT_SPIKE_MIN_COUNT": "0"}, []string{"demo"}, "EARSHOT_SPIKE_MIN_COUNT"},
		{map[string]string{"EARSHOT_CLASSIFIER": "gpt"}, []string{"classify"}, "EARSHOT_CLASSIFIER"},
		{map[string]string{"EARSHOT_BASE_URL": "notaurl"}, []string{"mcp", "--key", "esk_x"}, "EARSHOT_BASE_URL"},
		{map[string]string{"EARSHOT_BASE_URL": "notaurl"}, []string{"key", "list", "--project", "p"}, "EARSHOT_BASE_URL"},
		{map[string]string{"EARSHOT_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"serve"}, "EARSHOT_TRUSTED_PROXIES"},
		{map[string]string{"EARSHOT_TRUSTED_PROXIES": "127.0.0.1, proxy.internal"}, []string{"serve"}, "EARSHOT_TRUSTED_PROXIES"},
		{nil, []string{"serve", "--trusted-proxies", "10.0.0.1/8/8"}, "-trusted-proxies"},
		{map[string]string{"EARSHOT_LOG_FORMAT": "xml"}, []string{"serve"}, "EARSHOT_LOG_FORMAT"},
		{nil, []string{"serve", "--log-format", "logfmt"}, "-log-format"},
		{map[string]string{"EARSHOT_BASE_URL": "https://example.com/earshot/?x=1"}, []string{"serve"}, "EARSHOT_BASE_URL"},
		{nil, []string{"serve", "--base-url", "https://example.com/a/../b"}, "-base-url"},
		{nil, []string{"serve", "--base-url", "https://example.com/a%20b/"}, "-base-url"},
		{map[string]string{"EARSHOT_SQLITE_SYNC": "off"}, []string{"serve"}, "EARSHOT_SQLITE_SYNC"},
		{map[string]string{"EARSHOT_SQLITE_SYNC": "extra"}, []string{"user", "create", "--email", "a@example.com", "--password", "pw-123456789"}, "EARSHOT_SQLITE_SYNC"},
		{nil, []string{"demo", "--sqlite-sync", "fast"}, "-sqlite-sync"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_ADDR": "127.0.0.1:0"}
		for k, v := range tc.env {
			env[k] = v
		}
		code, _, errs := runCLI(t, env, tc.args...)
		name := fmt.Sprint(tc.env, tc.args)
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "invalid value") && !strings.Contains(errs, "bad entry") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: created the data dir", name)
		}
	}
}

// The command line wins over the environment, so a bad variable does not
// matter when the flag is given; good values from either place are used.
func TestFlagWinsOverVariable(t *testing.T) {
	env := map[string]string{"EARSHOT_CLASSIFIER": "gpt"}
	if code, _, errs := runCLI(t, env, "classify", "--classifier", "builtin"); code != 0 {
		t.Errorf("classify --classifier builtin with EARSHOT_CLASSIFIER=gpt: %d %s", code, errs)
	}
	var cfg Config
	fs := serveFlags("serve", os.Stderr, func(k string) string {
		return map[string]string{"EARSHOT_RATE_LIMIT": "7.5", "EARSHOT_RATE_BURST": "9", "EARSHOT_LOG_LEVEL": "WARN",
			"EARSHOT_BASE_URL": "https://earshot.example.com"}[k]
	}, &cfg)
	if err := parseFlags(fs, []string{"--rate-burst", "3"}); err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimit != 7.5 || cfg.RateBurst != 3 || cfg.LogLevel != "warn" || cfg.BaseURL != "https://earshot.example.com" || cfg.Addr != "127.0.0.1:8080" {
		t.Errorf("config %+v", cfg)
	}
	if !fs.isSet("rate-limit") || !fs.isSet("rate-burst") || fs.isSet("addr") {
		t.Errorf("isSet: rate-limit %v, rate-burst %v, addr %v", fs.isSet("rate-limit"), fs.isSet("rate-burst"), fs.isSet("addr"))
	}
}

// Every collector variable reaches its field of collect.Config, trimmed,
// and is documented in the README's platform table.
func TestCollectorVariables(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var probe collect.Config
	vars := collectorVars(&probe)
	if len(vars) < 25 {
		t.Fatalf("%d collector variables, want all 25", len(vars))
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.name] {
			t.Errorf("%s bound twice", v.name)
		}
		seen[v.name] = true
		if !strings.Contains(string(readme), "`"+v.name+"`") {
			t.Errorf("%s is not in the README", v.name)
		}
	}
	cfg := collectorConfig(func(name string) string { return "  value of " + name + "\n" }, true)
	for i, v := range collectorVars(&cfg) {
		if *v.dst != "value of "+v.name {
			t.Errorf("%s: field holds %q", v.name, *v.dst)
		}
		for j, w := range collectorVars(&cfg) {
			if i != j && v.dst == w.dst {
				t.Errorf("%s and %s share a field", v.name, w.name)
			}
		}
	}
	if !cfg.AllowPrivate || cfg.X.BearerToken != "value of EARSHOT_X_BEARER_TOKEN" || cfg.News.GDELTBaseURL != "value of EARSHOT_GDELT_BASE_URL" {
		t.Errorf("config %+v", cfg)
	}
	if c := collectorConfig(func(string) string { return "" }, false); !reflect.DeepEqual(c, collect.Config{}) {
		t.Errorf("no variables: %+v, want the zero config (platform defaults)", c)
	}
}

// The classifier variables are read into classify.Config once, by main;
// a bad value names its variable.
func TestClassifierVariables(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := classifierConfig(env(nil))
	if err != nil || c.Kind != "auto" || c.DetectTimeout != 0 {
		t.Errorf("default: %+v %v", c, err)
	}
	c, err = classifierConfig(env(map[string]string{"EARSHOT_CLASSIFIER": " Ollama ", "OLLAMA_HOST": "10.0.0.5",
		"EARSHOT_OLLAMA_MODEL": "qwen3:4b", "EARSHOT_OLLAMA_PRICE_PER_1K_INPUT": "0.1", "EARSHOT_OLLAMA_PRICE_PER_1K_OUTPUT": "0.2",
		"EARSHOT_OLLAMA_TIMEOUT": "5s", "EARSHOT_OLLAMA_BREAKER_COOLDOWN": "1m", "EARSHOT_OLLAMA_DETECT_TIMEOUT": "3s",
		"EARSHOT_OLLAMA_CONCURRENCY": "4", "EARSHOT_OLLAMA_RETRIES": "0"}))
	o := c.Ollama
	if err != nil || c.Kind != "ollama" || o.Host != "10.0.0.5" || o.Model != "qwen3:4b" || o.PricePer1KInput != 0.1 || o.PricePer1KOutput != 0.2 ||
		o.Timeout != 5*time.Second || o.BreakerCooldown != time.Minute || c.DetectTimeout != 3*time.Second || o.Concurrency != 4 || o.Retries != -1 {
		t.Errorf("ollama: %+v %v", c, err)
	}
	if c, _ := classifierConfig(env(map[string]string{"EARSHOT_CLASSIFIER": "builtin", "EARSHOT_OLLAMA_TIMEOUT": "soon"})); c.Kind != "builtin" {
		t.Errorf("builtin ignores the Ollama settings: %+v", c)
	}
	for _, bad := range []map[string]string{
		{"EARSHOT_CLASSIFIER": "gpt"},
		{"EARSHOT_CLASSIFIER": "ollama", "EARSHOT_OLLAMA_PRICE_PER_1K_OUTPUT": "cheap"},
		{"EARSHOT_CLASSIFIER": "ollama", "EARSHOT_OLLAMA_TIMEOUT": "soon"},
		{"EARSHOT_CLASSIFIER": "ollama", "OLLAMA_HOST": "ftp://10.0.0.5"},
		{"EARSHOT_CLASSIFIER": "ollama", "OLLAMA_HOST": "http://"},
		{"EARSHOT_CLASSIFIER": "auto", "EARSHOT_OLLAMA_DETECT_TIMEOUT": "now"},
		{"EARSHOT_OLLAMA_RETRIES": "-1"},
		{"EARSHOT_OLLAMA_CONCURRENCY": "0"},
	} {
		_, err := classifierConfig(env(bad))
		named := false
		for k := range bad {
			if err != nil && strings.Contains(err.Error(), k) && (k != "EARSHOT_CLASSIFIER" || len(bad) == 1) {
				named = true
			}
		}
		if err == nil || !named {
			t.Errorf("%v: %v, want an error naming the variable", bad, err)
		}
	}
}

// Serve's environment-only settings are read once, before it listens: a
// bad value exits 2 and creates nothing.
func TestServeEnvReadOnce(t *testing.T) {
	var cfg Config
	err := readServeEnv(&cfg, func(k string) string {
		return map[string]string{"EARSHOT_REPLAY": "1", "EARSHOT_SPIKE_INTERVAL": "10m", "EARSHOT_SPIKE_MIN_COUNT": "3",
			"EARSHOT_WEBHOOK_SCHEDULE": "0s,1m", "EARSHOT_SMTP_URL": "smtp://mail.example:587", "EARSHOT_X_BEARER_TOKEN": "tok",
			"EARSHOT_ALLOW_PRIVATE_WEBHOOKS": "1", "EARSHOT_CLASSIFIER": "builtin"}[k]
	})
	if err != nil || !cfg.Replay || cfg.Spikes.Interval != 10*time.Minute || cfg.Spikes.Params.MinCount != 3 || len(cfg.WebhookSchedule) != 2 ||
		cfg.SMTPURL != "smtp://mail.example:587" || cfg.Collectors.X.BearerToken != "tok" || !cfg.AllowPrivateWebhooks ||
		!cfg.Collectors.AllowPrivate || cfg.Classifier.Kind != "builtin" {
		t.Errorf("%+v %v", cfg, err)
	}
	if err := readServeEnv(&cfg, func(k string) string { return map[string]string{"EARSHOT_SPIKE_INTERVAL": "0"}[k] }); err != nil || cfg.Spikes.Interval != 0 {
		t.Errorf("interval 0 turns detection off: %+v %v", cfg.Spikes, err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	code, _, errs := runCLI(t, map[string]string{"EARSHOT_DATA": dir, "EARSHOT_ADDR": "127.0.0.1:0", "EARSHOT_WEBHOOK_SCHEDULE": "soon"}, "serve")
	if code != 2 || !strings.Contains(errs, "EARSHOT_WEBHOOK_SCHEDULE") {
		t.Errorf("bad schedule: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a bad schedule created the data dir")
	}
	// The outbound proxy: read once, given to the collectors (and the
	// delivery worker through cfg.OutboundProxy); a bad one exits 2.
	if err := readServeEnv(&cfg, func(k string) string {
		return map[string]string{"EARSHOT_OUTBOUND_PROXY": "http://proxy.corp:3128"}[k]
	}); err != nil || cfg.OutboundProxy == nil || cfg.OutboundProxy.Host != "proxy.corp:3128" || cfg.Collectors.Proxy != cfg.OutboundProxy {
		t.Errorf("outbound proxy: %v %v", cfg.OutboundProxy, err)
	}
	code, _, errs = runCLI(t, map[string]string{"EARSHOT_DATA": dir, "EARSHOT_ADDR": "127.0.0.1:0", "EARSHOT_OUTBOUND_PROXY": "socks5://proxy:1080"}, "serve")
	if code != 2 || !strings.Contains(errs, "EARSHOT_OUTBOUND_PROXY") {
		t.Errorf("bad proxy: exit %d, %q", code, errs)
	}
}

// TestOnlyMainReadsTheEnvironment: configuration is parsed once, in this
// package, and passed down; no library package reads a variable behind its
// back. Allowed: netguard's loopback switch (a safety net that must hold
// in every test binary and end-to-end run, whatever a caller passes),
// test helpers (storetest), the command line (internal/cli, whose config.go
// is "main's config") and separate commands (package main).
func TestOnlyMainReadsTheEnvironment(t *testing.T) {
	allowed := map[string]bool{"netguard/guard.go": true, "store/storetest/storetest.go": true}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || !strings.Contains(path, "/") || strings.HasPrefix(filepath.ToSlash(path), "internal/cli/") || allowed[filepath.ToSlash(path)] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv" || sel.Sel.Name == "Environ") {
				t.Errorf("%s reads the environment (os.%s): parse it in main's config and pass it down", path, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
