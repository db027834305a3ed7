// Package cli is earshot's command line: every command (serve, demo, mcp,
// the admin commands, backup, migrate, classify, bench, version), its flags
// and EARSHOT_* variables, parsed once into a Config that is passed down.
// The earshot binary's main package only calls Main.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"earshot/capability"
	"earshot/classify"
	"earshot/collect"
	"earshot/deliver"
	"earshot/server"
	"earshot/store"
)

// Config is every setting, parsed once from flags and EARSHOT_* variables.
type Config struct {
	DataDir              string
	DatabaseURL          string // PostgreSQL instead of SQLite in DataDir
	Addr                 string
	BaseURL              string
	DocsURL              string
	PlanQuotas           map[string]int
	AllowPrivateWebhooks bool
	LogLevel             string
	LogFormat            string // "text" (logfmt-like key=value) or "json", one object a line
	TrustedProxies       server.TrustedProxies
	RateLimit            float64
	RateBurst            int
	ReadTimeout          time.Duration // a whole request, headers and body
	MetricsToken         string        // bearer token /metrics asks for ("" = open)
	MCPToolsets          []string      // MCP toolsets loaded by default (nil: all)
	MCPReadOnly          bool          // MCP offers only tools that change nothing
	SQLiteSync           string        // store.SyncFull or store.SyncNormal (EARSHOT_SQLITE_SYNC)
	Getenv               func(string) string

	// Read from the environment only (config.go), by the commands that
	// use them.
	Replay          bool             // EARSHOT_REPLAY: serve's collectors read the recorded responses
	Classifier      classify.Config  // EARSHOT_CLASSIFIER, OLLAMA_HOST, EARSHOT_OLLAMA_*
	Collectors      collect.Config   // platform credentials and base URLs
	Spikes          spikeSettings    // EARSHOT_SPIKE_*
	WebhookSchedule deliver.Schedule // EARSHOT_WEBHOOK_SCHEDULE
	SMTPURL         string           // EARSHOT_SMTP_URL
	OutboundProxy   *url.URL         // EARSHOT_OUTBOUND_PROXY: platforms, feeds, webhooks, alerts
	Backups         backupSettings   // EARSHOT_BACKUP_SCHEDULE, _KEEP, _DIR (backup.go)
	// Leases, so the takeover time of a dead process's work (several
	// processes on one PostgreSQL): EARSHOT_SCAN_LEASE (default 45s,
	// renewed every third of it while a scan runs; a restarted process
	// reclaims its earlier run's leases at once) and a webhook queue's 2 ×
	// EARSHOT_WEBHOOK_TIMEOUT + 10 s (default 40 s). 0 = the default.
	ScanLease      time.Duration
	WebhookTimeout time.Duration
	// SessionIdle: EARSHOT_SESSION_IDLE (config.go); 0 = the default
	// (12 h), negative = no idle limit.
	SessionIdle time.Duration
	// CrashAt names where fault tests kill serve with SIGKILL
	// (EARSHOT_TEST_CRASH_AFTER, honoured only with EARSHOT_TEST_HOOKS=1;
	// see capability.Config.CrashAt and faults_idem_test.go).
	CrashAt string
}

// Main runs the command line of os.Args and returns the process's exit
// code.
func Main() int {
	return run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// commands is the CLI's command list, the one source of the top-level help
// and of each group's ("user", "project", "key") subcommand help.
var commands = []struct{ name, what, flags string }{
	{"serve", "Serve the REST API, MCP over HTTP, the dashboard and docs;\nrun the collectors and webhook/alert delivery",
		"[--addr HOST:PORT] [--base-url URL] [--docs-url URL]\n[--rate-limit N] [--rate-burst N] [--trusted-proxies CIDRs]"},
	{"demo", "serve on a fresh data dir with a demo project and recorded\nposts: no credentials, no network", "[--addr HOST:PORT]"},
	{"mcp", "MCP over stdio for one project, for local agents", "--key KEY (or EARSHOT_API_KEY)"},
	{"user create", "Create a dashboard user; prints its id (the password on stdin\nor in EARSHOT_PASSWORD)", "--email E [--name N]"},
	{"user set-password", "Reset a user's password (on stdin or in EARSHOT_PASSWORD); logs\nthem out everywhere and revokes the API keys their sessions made", "--email E"},
	{"project create", "Create a project; prints it as JSON", "--owner EMAIL --name N [--website URL]"},
	{"project set-plan", "Change a project's plan", "--project ID --plan PLAN"},
	{"key create", "Issue an API key; prints it once", "--project ID [--scopes a,b|all] [--name N]"},
	{"key list", "List a project's API keys", "--project ID"},
	{"key revoke", "Revoke an API key", "--key-id ID"},
	{"backup", "Write a consistent copy of the database (0600; any schema\nversion, nothing is migrated)", "--to FILE"},
	{"restore", "Put a backup back in place of the data dir's database (the\ncurrent one is kept aside); serve must be stopped", "--from FILE [--data DIR]"},
	{"migrate", "Copy the data dir's SQLite database into an empty PostgreSQL\ndatabase (a consistent snapshot; safe while serve runs)", "--to postgres://… [--data DIR]"},
	{"classify", "Classify JSON lines from stdin to stdout (no data dir)", "[--classifier builtin|ollama]"},
	{"eval", "Score the built-in classifier (and Ollama, when there is one)\non your own labelled posts: P/R/F1, confusion, time, cost", "--file posts.csv|posts.jsonl|- [--keywords a,b] [--ollama auto|on|off] [--json]"},
	{"bench", "Performance report of the inbox on a generated history", "[--mentions N] [--other N]"},
	{"healthcheck", "Exit 0 when the local serve answers /healthz healthy, 1 otherwise\n(for Docker's HEALTHCHECK: needs no shell or curl)", "[--addr HOST:PORT] [--base-url URL] [--timeout D]"},
	{"version", "Print the version, commit, build date, Go version and API\nversion (also earshot --version or -v)", ""},
}

var usage = func() string {
	var b strings.Builder
	b.WriteString("earshot — self-hosted brand-mention monitor\n\nUsage: earshot COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		for i, line := range strings.Split(c.what, "\n") {
			name := ""
			if i == 0 {
				name = c.name
			}
			fmt.Fprintf(&b, "  %-17s %s\n", name, line)
		}
		for _, line := range strings.Split(c.flags, "\n") {
			if line != "" {
				fmt.Fprintf(&b, "  %-17s   %s\n", "", line)
			}
		}
	}
	b.WriteString(`
--data DIR (env EARSHOT_DATA, default ./earshot-data) is the data directory.
Only serve, demo, user create and bench start a new one; the other commands
need its database. --database-url postgres://… (env EARSHOT_DATABASE_URL)
keeps the store in PostgreSQL instead, for every command; "earshot migrate"
copies a data dir there. "earshot help COMMAND" lists a command's flags and
their EARSHOT_* variables.
`)
	return b.String()
}()

// subcommands lists a group's subcommands ("create" for "user").
func subcommands(group string) []string {
	var subs []string
	for _, c := range commands {
		if sub, ok := strings.CutPrefix(c.name, group+" "); ok {
			subs = append(subs, sub)
		}
	}
	return subs
}

func groupUsage(group string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: earshot %s SUBCOMMAND [flags]\n\nSubcommands:\n", group)
	for _, c := range commands {
		if sub, ok := strings.CutPrefix(c.name, group+" "); ok {
			fmt.Fprintf(&b, "  %-13s %s (%s)\n", sub, strings.ReplaceAll(c.what, "\n", " "), c.flags)
		}
	}
	fmt.Fprintf(&b, "\n\"earshot %s SUBCOMMAND -h\" lists its flags.\n", group)
	return b.String()
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// asksHelp reports whether a command's arguments ask for its help (-h,
// -help or --help among its flags).
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// run is main without process globals, so tests can drive the CLI.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if isVersionFlag(args[0]) && len(args) == 1 {
		printVersion(stdout)
		return 0
	}
	if isHelp(args[0]) {
		if len(args) > 1 && args[0] == "help" {
			// earshot help COMMAND [SUBCOMMAND] is earshot COMMAND [SUBCOMMAND] -h.
			return run(ctx, append(args[1:], "-h"), stdin, stdout, stderr, getenv)
		}
		// Asked-for help is the command's output (stdout, so it pipes to
		// less or grep); usage after a mistake stays on stderr.
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, rest := args[0], args[1:]
	errOut := stderr // for mistakes, even when help was asked for
	if asksHelp(rest) {
		// A command's flag list, when asked for, also goes to stdout: the
		// flag package prints it to the flag set's output, which is stderr.
		stderr = stdout
	}
	if subs := subcommands(cmd); len(subs) > 0 {
		switch {
		case len(rest) == 0:
			fmt.Fprintf(errOut, "earshot %s: a subcommand is needed\n\n%s", cmd, groupUsage(cmd))
			return 2
		case isHelp(rest[0]):
			fmt.Fprint(stdout, groupUsage(cmd))
			return 0
		}
		if !slices.Contains(subs, rest[0]) {
			fmt.Fprintf(errOut, "earshot %s: unknown subcommand %q\n\n%s", cmd, rest[0], groupUsage(cmd))
			return 2
		}
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	var err error
	switch cmd {
	case "version":
		fs := flag.NewFlagSet("earshot version", flag.ContinueOnError)
		fs.SetOutput(stderr)
		if err = parseArgs(fs, rest); err == nil {
			printVersion(stdout)
		}
	case "healthcheck":
		err = cmdHealthcheck(ctx, rest, stdout, stderr, getenv)
	case "serve":
		err = cmdServe(ctx, rest, stdout, stderr, getenv, false)
	case "demo":
		err = cmdServe(ctx, rest, stdout, stderr, getenv, true)
	case "mcp":
		err = cmdMCP(ctx, rest, stdin, stdout, stderr, getenv)
	case "classify":
		err = cmdClassify(ctx, rest, stdin, stdout, stderr, getenv)
	case "user create":
		err = cmdUserCreate(ctx, rest, stdin, stdout, stderr, getenv)
	case "user set-password":
		err = cmdUserSetPassword(ctx, rest, stdin, stdout, stderr, getenv)
	case "project create":
		err = cmdProjectCreate(ctx, rest, stdout, stderr, getenv)
	case "project set-plan":
		err = cmdProjectSetPlan(ctx, rest, stdout, stderr, getenv)
	case "key create":
		err = cmdKeyCreate(ctx, rest, stdout, stderr, getenv)
	case "key list":
		err = cmdKeyList(ctx, rest, stdout, stderr, getenv)
	case "key revoke":
		err = cmdKeyRevoke(ctx, rest, stdout, stderr, getenv)
	case "backup":
		err = cmdBackup(ctx, rest, stdout, stderr, getenv)
	case "restore":
		err = cmdRestore(ctx, rest, stdout, stderr, getenv)
	case "migrate":
		err = cmdMigrate(ctx, rest, stdout, stderr, getenv)
	case "bench":
		err = cmdBench(ctx, rest, stdout, stderr, getenv)
	case "eval":
		err = cmdEval(ctx, rest, stdin, stdout, stderr, getenv)
	default:
		fmt.Fprintf(errOut, "earshot: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if msg, ok := schemaTooNew(err); ok {
			fmt.Fprintf(stderr, "earshot %s: %s\n", cmd, msg)
			return 2
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "earshot %s: %s\n", cmd, ue.msg)
			return 2
		}
		fmt.Fprintf(stderr, "earshot %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// cliFlags is a command's flag set and the EARSHOT_* variable of each flag.
// A variable is parsed by its flag's own Set, so a bad value is refused the
// same way from either place (exit 2, naming the variable), and a value on
// the command line wins.
type cliFlags struct {
	*flag.FlagSet
	getenv  func(string) string
	vars    map[string]string // flag name → its variable
	given   map[string]bool   // flags set on the command line
	fromEnv map[string]bool   // flags set from their variable
}

// newFlags returns a flag set with the flags every command shares.
func newFlags(name string, stderr io.Writer, getenv func(string) string, cfg *Config) *cliFlags {
	fs := &cliFlags{FlagSet: flag.NewFlagSet("earshot "+name, flag.ContinueOnError), getenv: getenv,
		vars: map[string]string{}, given: map[string]bool{}, fromEnv: map[string]bool{}}
	fs.SetOutput(stderr)
	fs.checkedVar(&cfg.DataDir, "data", "EARSHOT_DATA", "./earshot-data", "data `directory`", parseDataDir)
	fs.checkedVar(&cfg.DatabaseURL, "database-url", "EARSHOT_DATABASE_URL", "",
		"PostgreSQL `URL` postgres://user:pass@host/db; the store lives there instead of the data dir", parseDatabaseURL)
	fs.checkedVar(&cfg.LogLevel, "log-level", "EARSHOT_LOG_LEVEL", "info", "log `level`: debug, info, warn or error", parseLogLevel)
	fs.checkedVar(&cfg.LogFormat, "log-format", "EARSHOT_LOG_FORMAT", "text", "log `format`: text (key=value) or json (one object a line, for a log collector)", parseLogFormat)
	fs.checkedVar(&cfg.SQLiteSync, "sqlite-sync", "EARSHOT_SQLITE_SYNC", store.DefaultSync,
		"SQLite commit `durability`: full (a 2xx write survives a power cut) or normal (faster; the last writes before a power cut or OS crash can roll back)", parseSQLiteSync)
	cfg.Getenv = getenv
	return fs
}

// mcpFlags are the MCP tool-list flags of serve, demo and mcp.
func mcpFlags(fs *cliFlags, cfg *Config) {
	checkedVar(fs, &cfg.MCPToolsets, "mcp-toolsets", "EARSHOT_MCP_TOOLSETS", nil,
		"MCP `toolsets` to load: a comma-separated list of "+strings.Join(capability.Toolsets, ", ")+", or all (default all; /mcp?toolsets= chooses per connection)", capability.ParseToolsets)
	fs.BoolVar(&cfg.MCPReadOnly, "mcp-read-only", false, "offer agents only MCP tools that change nothing (/mcp?read_only= chooses per connection)")
	fs.envVar("mcp-read-only", "EARSHOT_MCP_READ_ONLY")
}

// envVar binds flag name to an environment variable.
func (fs *cliFlags) envVar(name, variable string) {
	fs.vars[name] = variable
	f := fs.Lookup(name)
	f.Usage += " (" + variable + ")"
}

// checkedVar defines a flag whose value is parsed and checked by parse, bound
// to variable (none when empty).
func checkedVar[T any](fs *cliFlags, p *T, name, variable string, def T, usage string, parse func(string) (T, error)) {
	*p = def
	fs.Var(&checkedValue[T]{p: p, parse: parse}, name, usage)
	if variable != "" {
		fs.envVar(name, variable)
	}
}

func (fs *cliFlags) checkedVar(p *string, name, variable, def, usage string, parse func(string) (string, error)) {
	checkedVar(fs, p, name, variable, def, usage, parse)
}

// isSet reports whether a flag was given, on the command line or by its
// variable.
func (fs *cliFlags) isSet(name string) bool { return fs.given[name] || fs.fromEnv[name] }

// parseFlags parses the command line, then the variables of the flags it
// did not set.
func parseFlags(fs *cliFlags, args []string) error {
	if err := parseArgs(fs.FlagSet, args); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) { fs.given[f.Name] = true })
	names := make([]string, 0, len(fs.vars))
	for name := range fs.vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		variable := fs.vars[name]
		v := fs.getenv(variable)
		if fs.given[name] || v == "" {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return usagef("invalid value %q for %s: %v", v, variable, err)
		}
		fs.fromEnv[name] = true
	}
	return nil
}

// parseArgs parses a flag set without variables: usage errors exit 2.
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// checkedValue is a flag.Value that parses and checks what it is set to.
type checkedValue[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (v *checkedValue[T]) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return fmt.Sprint(*v.p)
}

func (v *checkedValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

func parseDataDir(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", errors.New("must name a directory")
	}
	return s, nil
}

// parseDatabaseURL takes the value as given: the flag package and
// parseFlags quote a refused value in their message, and a database URL
// holds a password. checkDatabaseURL refuses it without quoting it.
func parseDatabaseURL(s string) (string, error) { return strings.TrimSpace(s), nil }

// checkDatabaseURL refuses a database URL that is not PostgreSQL's, naming
// the setting but not the value (it may hold a password).
func checkDatabaseURL(u, setting string) error {
	if u != "" && !store.IsDatabaseURL(u) {
		return usagef("%s must be a PostgreSQL URL, postgres://user:password@host:5432/database", setting)
	}
	return nil
}

// parseSQLiteSync accepts full or normal (EARSHOT_SQLITE_SYNC).
func parseSQLiteSync(s string) (string, error) {
	if _, err := store.ParseSync(s); err != nil || strings.TrimSpace(s) == "" {
		return "", errors.New("must be full or normal")
	}
	return store.ParseSync(s)
}

func parseLogLevel(s string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(s)); l {
	case "debug", "info", "warn", "error":
		return l, nil
	}
	return "", errors.New("must be debug, info, warn or error")
}

func parseLogFormat(s string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(s)); f {
	case "text", "json":
		return f, nil
	}
	return "", errors.New("must be text or json")
}

// parseHTTPURL accepts an absolute http or https URL (base and docs URLs end
// up in links that users and agents follow). A path is allowed (Earshot
// served under https://example.com/earshot/ behind a proxy) if it is plain:
// no query, fragment, dot segments, empty segments or escapes, since it is
// put in front of every route, link and cookie.
func parseHTTPURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return "", errors.New("must be an absolute http or https URL, like https://earshot.example.com")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return "", errors.New("must be a plain URL without user, query or fragment, like https://example.com/earshot/")
	}
	if p := strings.TrimRight(u.Path, "/"); p != "" && (path.Clean(p) != p || u.RawPath != "" || (&url.URL{Path: p}).EscapedPath() != p || strings.ContainsAny(p, "%;")) {
		return "", fmt.Errorf("its path %q must be plain segments, like /earshot or /tools/earshot (no //, . or .., no escapes)", u.Path)
	}
	return s, nil
}

func parseTrustedProxies(s string) (server.TrustedProxies, error) {
	return server.ParseTrustedProxies(s)
}

func parseAddr(s string) (string, error) {
	_, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", errors.New("must be HOST:PORT, like 127.0.0.1:8080 or :8080")
	}
	return s, nil
}

func parsePositiveFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, errors.New("must be a number above 0")
	}
	return f, nil
}

func parsePositiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("must be a positive duration such as 30s or 2m")
	}
	return d, nil
}

func parsePositiveInt(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, errors.New("must be a whole number, at least 1")
	}
	return n, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envSwitch reads a variable that is off unless set to 1.
func envSwitch(getenv func(string) string, key string) (bool, error) {
	switch v := getenv(key); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, usagef("invalid value %q for %s: must be 1 (on) or 0 (off)", v, key)
	}
}

// parsePlanQuotas reads "trial=1000,starter=10000,…".
func parsePlanQuotas(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil || n < 0 || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("EARSHOT_PLAN_QUOTAS: bad entry %q (want plan=number)", part)
		}
		out[strings.TrimSpace(k)] = n
	}
	if _, ok := out["trial"]; !ok {
		out["trial"] = 1000
	}
	// New projects are on store.DefaultPlan: a list without it must not
	// give them trial's quota (Quota's fallback for unknown plans).
	if _, ok := out[store.DefaultPlan]; !ok {
		out[store.DefaultPlan] = 0
	}
	return out, nil
}

const defaultPlanQuotas = "trial=1000,starter=10000,growth=50000,unlimited=0"

// newLogger is every command's logger, on stderr (stdout belongs to
// earshot mcp and to the commands' output): text by default, JSON lines
// with --log-format json.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// openService opens an existing database and builds the capability service
// for admin commands (safe while serve runs: SQLite WAL and busy timeouts).
// A data dir without a database is an error, not a new empty database: a
// mistyped --data would otherwise "succeed" on nothing (a backup of an empty
// database, a key list that prints nothing) and leave a stray data dir.
func openService(ctx context.Context, cfg *Config, stderr io.Writer) (*capability.Service, func(), error) {
	return openServiceMode(ctx, cfg, stderr, false)
}

// createOrOpenService is openService for the commands that may start a new
// data dir: serve, demo, user create (the first step of Getting started)
// and bench.
func createOrOpenService(ctx context.Context, cfg *Config, stderr io.Writer) (*capability.Service, func(), error) {
	return openServiceMode(ctx, cfg, stderr, true)
}

func openServiceMode(ctx context.Context, cfg *Config, stderr io.Writer, create bool) (*capability.Service, func(), error) {
	quotas, err := parsePlanQuotas(envOr(cfg.Getenv, "EARSHOT_PLAN_QUOTAS", defaultPlanQuotas))
	if err != nil {
		return nil, nil, usageError{err.Error()}
	}
	cfg.PlanQuotas = quotas
	// Commands without checked --base-url/--docs-url flags (mcp, admin)
	// take them from the environment: the same check as serve's flags.
	if cfg.BaseURL == "" {
		cfg.BaseURL = cfg.Getenv("EARSHOT_BASE_URL")
	}
	for _, u := range []struct{ flag, variable, value string }{
		{"--base-url", "EARSHOT_BASE_URL", cfg.BaseURL}, {"--docs-url", "EARSHOT_DOCS_URL", cfg.DocsURL},
	} {
		if _, err := parseHTTPURL(u.value); u.value != "" && err != nil {
			return nil, nil, usagef("invalid value %q for %s / %s: %v", u.value, u.flag, u.variable, err)
		}
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + envOr(cfg.Getenv, "EARSHOT_ADDR", "127.0.0.1:8080")
	}
	unlock, err := holdDataDir(cfg, create)
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(ctx, cfg, create)
	if err != nil {
		unlock()
	}
	if store.IsReadOnly(err) {
		return nil, nil, fmt.Errorf("the data dir %s is read-only for this user, and opening its database needs to write (schema check, WAL index): make the data dir and %s writable, or run as the user that runs earshot serve", cfg.DataDir, store.FileName)
	}
	if err != nil {
		return nil, nil, err
	}
	svc := capability.New(st, capability.Config{
		BaseURL: strings.TrimRight(cfg.BaseURL, "/"), DocsURL: strings.TrimRight(cfg.DocsURL, "/"),
		PlanQuotas: quotas, AllowPrivateWebhooks: cfg.AllowPrivateWebhooks,
		CrashAt: crashHook(cfg.CrashAt), SessionIdle: cfg.SessionIdle,
	}, newLogger(stderr, cfg.LogLevel, cfg.LogFormat))
	logPreMigrationBackup(svc.Log, st)
	return svc, func() { st.Close(); unlock() }, nil
}

// crashHook kills this process with SIGKILL, as kill -9 would (no
// deferred code, no database close), when a request reaches the point
// named; nil when no point is named.
func crashHook(point string) func(string) {
	if point == "" {
		return nil
	}
	return func(at string) {
		if at != point {
			return
		}
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
		select {} // the signal is on its way
	}
}

// openStore opens the store the flags select: PostgreSQL at
// --database-url, else SQLite in the data dir (created only when create).
func openStore(ctx context.Context, cfg *Config, create bool) (*store.Store, error) {
	if cfg.DatabaseURL != "" {
		if err := checkDatabaseURL(cfg.DatabaseURL, "--database-url / EARSHOT_DATABASE_URL"); err != nil {
			return nil, err
		}
		if !create {
			ok, err := store.PostgresInstalled(ctx, cfg.DatabaseURL)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("no Earshot database in %s (check --database-url or EARSHOT_DATABASE_URL; \"earshot serve\", \"earshot user create\" or \"earshot migrate\" creates one)", store.RedactURL(cfg.DatabaseURL))
			}
		}
		return store.OpenPostgres(ctx, cfg.DatabaseURL)
	}
	if !create {
		if err := databaseExists(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	return store.OpenSQLite(ctx, cfg.DataDir, store.SQLiteOptions{Sync: cfg.SQLiteSync})
}

// databaseExists reports, as an error for the user, a data dir that holds
// no database.
func databaseExists(dir string) error {
	fi, err := os.Stat(filepath.Join(dir, store.FileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no Earshot database in %s (check --data or EARSHOT_DATA; \"earshot serve\" or \"earshot user create\" creates one)", dir)
	case err != nil:
		return fmt.Errorf("data dir %s: %w", dir, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("data dir %s: %s is not a database file", dir, store.FileName)
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
