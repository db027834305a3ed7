package cli

import (
	"context"
	"errors"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"earshot/capability"
	"earshot/server"
)

// cmdMCP serves the MCP tools of one project over stdio, for Claude Desktop
// and other local agents. It opens the data directory directly (safe while
// serve runs). stdout carries the protocol only; logs go to stderr.
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("mcp", stderr, getenv, &cfg)
	key := fs.String("key", getenv("EARSHOT_API_KEY"), "API key of the project (EARSHOT_API_KEY)")
	fs.checkedVar(&cfg.BaseURL, "base-url", "EARSHOT_BASE_URL", "", "public base `URL`, for docs links", parseHTTPURL)
	fs.checkedVar(&cfg.DocsURL, "docs-url", "EARSHOT_DOCS_URL", "", "docs `URL`", parseHTTPURL)
	mcpFlags(fs, &cfg)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	token := strings.TrimSpace(*key)
	if token == "" {
		return usagef("an API key is required: --key KEY or EARSHOT_API_KEY (create one with: earshot key create --project ID)")
	}
	if !strings.HasPrefix(token, "esk_") {
		return usagef("the API key (--key or EARSHOT_API_KEY) must be an API key (esk_…)")
	}
	allow, err := envSwitch(getenv, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS")
	if err != nil {
		return err
	}
	cfg.AllowPrivateWebhooks = allow
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	svc, closeStore, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	// Fail fast on a bad key, before a client sees an empty session.
	if _, err := svc.Authenticate(ctx, token, "", ""); err != nil {
		var e *capability.Error
		if errors.As(err, &e) {
			return errors.New(e.Message)
		}
		return err
	}
	srv := server.NewMCPServer(svc, server.MCPOptions{
		Version:  buildInfo().serverVersion(),
		Toolsets: cfg.MCPToolsets,
		ReadOnly: cfg.MCPReadOnly,
		// Re-resolved per call, so a revoked key stops working on its next
		// call (docs/decisions.md#credentials), as over HTTP.
		Principal: func(ctx context.Context) (*capability.Principal, error) {
			return svc.Authenticate(ctx, token, "", "")
		},
	})
	svc.Log.Info("earshot mcp ready on stdio", "database", svc.Store.Path(), "toolsets", toolsetsLabel(cfg.MCPToolsets), "read_only", cfg.MCPReadOnly)
	err = srv.Run(ctx, &server.StdioTransport{In: stdin, Out: stdout})
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return nil
	}
	return err
}

// toolsetsLabel names the loaded toolsets for the log.
func toolsetsLabel(ts []string) string {
	if ts == nil {
		return "all"
	}
	return strings.Join(ts, ",")
}
