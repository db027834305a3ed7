package cli

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"earshot/capability"
)

// announceSetup logs the first-run setup link, with its one-time token,
// while the installation has no user (as Grafana and Jupyter print theirs):
// /setup refuses anyone without it, so only whoever reads this log can
// create the owner. A WARN, so it shows at every log level but error.
func announceSetup(ctx context.Context, svc *capability.Service, log *slog.Logger, baseURL string) {
	open, err := svc.SetupOpen(ctx)
	if err != nil {
		log.Error("checking for a first user", "err", err)
		return
	}
	if !open {
		return
	}
	token, err := svc.SetupToken(ctx)
	if err != nil {
		log.Error("setup token", "err", err)
		return
	}
	link := strings.TrimRight(baseURL, "/") + "/setup?token=" + url.QueryEscape(token)
	log.Warn("no user yet: open "+link+" to create the owner (or run earshot user create)", "setup_url", link)
}
