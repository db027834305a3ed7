package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"strings"

	"earshot/capability"
	"earshot/internal/replay"
	"earshot/store"
	"earshot/vocab"
)

// `earshot demo`: serve on a fresh data dir seeded with an owner, the Acme
// project, a brand and a competitor monitor, and an API key; every collector
// points at the replay server (replay.NewHandler), so the real
// collectors, classifier and delivery run on recorded platform responses
// with no credentials and no network.

// DemoInfo is what `earshot demo` prints for the newcomer.
type DemoInfo struct {
	Email        string
	Password     string
	APIKey       string
	ProjectID    string
	DashboardURL string
}

const (
	demoEmail       = "demo@earshot.local"
	demoDescription = "Acme Projects is a project management app for small teams: boards, timelines, Gantt charts, sprint planning and a mobile app. Website acme.example, on X @acmehq."
	// demoBackfillHours makes the first scan read the whole recording (about
	// five days of posts) instead of the default 24 hours.
	demoBackfillHours = 168
)

// prepareDemo seeds a fresh data dir for the demo. replayURL is the base URL
// of the replay server; the monitors' feed and review URLs point at it.
func prepareDemo(ctx context.Context, svc *capability.Service, replayURL string) (*DemoInfo, error) {
	n, err := svc.Store.CountUsers(ctx)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, fmt.Errorf("demo: the data dir already has users; earshot demo needs a fresh data dir")
	}
	password := "demo-" + demoSecret(12)
	u, err := svc.CreateUser(ctx, demoEmail, password, "Demo Owner")
	if err != nil {
		return nil, fmt.Errorf("demo: creating the owner: %w", err)
	}
	website := "https://acme.example"
	pr, err := svc.Store.CreateProject(ctx, u.ID, "Acme", &website)
	if err != nil {
		return nil, fmt.Errorf("demo: creating the project: %w", err)
	}
	desc := demoDescription
	if _, err := svc.Store.UpdateProject(ctx, pr.ID, store.ProjectPatch{Description: &desc}); err != nil {
		return nil, fmt.Errorf("demo: describing the project: %w", err)
	}
	own, err := svc.Store.CreateKeywordGroup(ctx, pr.ID, "Acme", true)
	if err != nil {
		return nil, fmt.Errorf("demo: keyword group: %w", err)
	}
	rival, err := svc.Store.CreateKeywordGroup(ctx, pr.ID, "Globex", false)
	if err != nil {
		return nil, fmt.Errorf("demo: keyword group: %w", err)
	}
	// Monitors go through create_monitor, so they get exactly the defaults
	// and validation of the API (and the scheduler's nudge).
	p := &capability.Principal{Kind: capability.KindSystem, UserID: u.ID, ProjectID: pr.ID, Role: "owner"}
	monitors := []map[string]any{
		{
			"name":     "Acme",
			"keywords": []string{"Acme", "acme.example", "@acmehq", "Acme Projects"},
			// The brand's own accounts: their posts are collected and
			// kept, marked own, and stay out of the triage inbox.
			"watch_accounts": []string{"acme", "acmehq", "acme_support", "acme_eng", replay.LinkedInOrganization,
				replay.BlueskyAccount, replay.MastodonAccount},
			"feed_urls":      replay.FeedURLs(replayURL),
			"review_urls":    replay.ReviewURLs(replayURL),
			"group_id":       own.ID,
			"backfill_hours": demoBackfillHours,
		},
		{
			"name":           "Globex",
			"keywords":       []string{"Globex"},
			"group_id":       rival.ID,
			"backfill_hours": demoBackfillHours,
		},
	}
	for _, body := range monitors {
		if _, err := callSystem(ctx, svc, "create_monitor", p, body); err != nil {
			return nil, fmt.Errorf("demo: creating monitor %s: %w", body["name"], err)
		}
	}
	key, err := svc.IssueKey(ctx, pr.ID, u.ID, "demo", nil)
	if err != nil {
		return nil, fmt.Errorf("demo: issuing an API key: %w", err)
	}
	return &DemoInfo{
		Email: demoEmail, Password: password, APIKey: key.Key, ProjectID: pr.ID,
		DashboardURL: strings.TrimRight(svc.Config.BaseURL, "/") + "/",
	}, nil
}

// printDemo writes the demo's welcome: where to look and how to log in.
func printDemo(w io.Writer, info *DemoInfo) {
	fmt.Fprintf(w, "earshot demo is running: recorded posts from all %d sources are being collected now.\n\n", len(vocab.Sources))
	fmt.Fprintf(w, "  Dashboard  %s\n", info.DashboardURL)
	fmt.Fprintf(w, "  Login      %s\n", info.Email)
	fmt.Fprintf(w, "  Password   %s\n", info.Password)
	fmt.Fprintf(w, "  API key    %s\n", info.APIKey)
	fmt.Fprintf(w, "  Project    %s\n\n", info.ProjectID)
	fmt.Fprintf(w, "Try: curl -H 'Authorization: Bearer %s' %sapi/v1/mentions\n", info.APIKey, info.DashboardURL)
}

// demoSecret returns n random characters without look-alikes.
func demoSecret(n int) string {
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
