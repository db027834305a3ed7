package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
