package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"earshot/capability"
)

func cmdUserCreate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("user create", stderr, getenv, &cfg)
	email := fs.String("email", "", "email address (required)")
	password := passwordFlag(fs)
	name := fs.String("name", "", "display name")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *email == "" {
		return usagef("--email is required")
	}
	pw, err := readPassword(fs, *password, stdin, stderr)
	if err != nil {
		return err
	}
	svc, closeFn, err := createOrOpenService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	u, err := svc.CreateUser(ctx, *email, pw, *name)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, u.ID)
	return nil
}

// cmdUserSetPassword is the admin's password reset on the box: it needs the
// data dir, not the old password, logs the user out everywhere and revokes
// the API keys their sessions made (it lists them).
func cmdUserSetPassword(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("user set-password", stderr, getenv, &cfg)
	email := fs.String("email", "", "the user's email (required)")
	password := passwordFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *email == "" {
		return usagef("--email is required")
	}
	pw, err := readPassword(fs, *password, stdin, stderr)
	if err != nil {
		return err
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := svc.SetPassword(ctx, *email, pw)
	if err != nil {
		var e *capability.Error
		if errors.As(err, &e) && e.Code == "NOT_FOUND" {
			return fmt.Errorf("no user with the email %s (earshot user create makes one)", *email)
		}
		return err
	}
	fmt.Fprintf(stdout, "password of %s changed; %d session(s) logged out; %d API key(s) made from their sessions revoked\n",
		*email, res.SessionsRevoked, len(res.KeysRevoked))
	for _, k := range res.KeysRevoked {
		fmt.Fprintf(stdout, "  revoked key %s  %s…%s  %q  project %s\n", k.ID, k.Prefix, k.Last4, k.Name, k.ProjectID)
	}
	return nil
}

func cmdProjectCreate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("project create", stderr, getenv, &cfg)
	owner := fs.String("owner", "", "owner's email (required)")
	name := fs.String("name", "", "project name (required)")
	website := fs.String("website", "", "brand website URL")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *owner == "" || *name == "" {
		return usagef("--owner and --name are required")
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	u, err := svc.Store.UserByEmail(ctx, *owner)
	if err != nil {
		return fmt.Errorf("owner %s: %w (create the user first: earshot user create)", *owner, err)
	}
	body := map[string]any{"name": *name}
	if *website != "" {
		body["website"] = *website
	}
	p := &capability.Principal{Kind: capability.KindSystem, UserID: u.ID}
	out, err := callSystem(ctx, svc, "create_project", p, body)
	if err != nil {
		return err
	}
	pr, err := svc.Store.Project(ctx, out.(*capability.CreateProjectOut).ID)
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"id": pr.ID, "name": pr.Name, "slug": pr.Slug, "plan": pr.Plan, "mention_quota": svc.Quota(pr.Plan), "website": pr.Website, "owner_id": pr.OwnerID})
}

// callSystem runs a capability as the system (CLI), validating body like REST.
func callSystem(ctx context.Context, svc *capability.Service, name string, p *capability.Principal, body map[string]any) (any, error) {
	c, ok := svc.Capability(name)
	if !ok {
		return nil, fmt.Errorf("no capability %s", name)
	}
	in, err := decodeMap(c, body)
	if err != nil {
		return nil, err
	}
	out := svc.Execute(ctx, c, p, in, "")
	if out.Err != nil {
		if out.Cause != nil {
			return nil, out.Cause
		}
		return nil, out.Err
	}
	return out.Data, nil
}

func cmdProjectSetPlan(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("project set-plan", stderr, getenv, &cfg)
	project := fs.String("project", "", "project id (required)")
	plan := fs.String("plan", "", "plan name, one of EARSHOT_PLAN_QUOTAS (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" || *plan == "" {
		return usagef("--project and --plan are required")
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	if _, ok := cfg.PlanQuotas[*plan]; !ok {
		var names []string
		for k := range cfg.PlanQuotas {
			names = append(names, k)
		}
		return usagef("unknown plan %q (known: %s)", *plan, strings.Join(names, ", "))
	}
	if err := svc.Store.SetPlan(ctx, *project, *plan); err != nil {
		return fmt.Errorf("project %s: %w", *project, err)
	}
	fmt.Fprintf(stdout, "project %s: plan %s (%d mentions/month; 0 = unlimited)\n", *project, *plan, cfg.PlanQuotas[*plan])
	return nil
}

func cmdKeyCreate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("key create", stderr, getenv, &cfg)
	project := fs.String("project", "", "project id (required)")
	scopes := fs.String("scopes", "all", "comma-separated scopes, or all")
	name := fs.String("name", "", "a label for the key")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" {
		return usagef("--project is required")
	}
	// nil is every scope; an explicit --scopes "" must not come out as that.
	var list []string
	if strings.TrimSpace(*scopes) != "all" {
		for _, s := range strings.Split(*scopes, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			if !slices.Contains(capability.AllScopes, s) {
				return usagef("unknown scope %q (known: %s)", s, strings.Join(capability.AllScopes, ", "))
			}
			list = append(list, s)
		}
		if len(list) == 0 {
			return usagef("--scopes must name at least one scope, or 'all' (known: %s)", strings.Join(capability.AllScopes, ", "))
		}
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	pr, err := svc.Store.Project(ctx, *project)
	if err != nil {
		return fmt.Errorf("project %s: %w", *project, err)
	}
	k, err := svc.IssueKey(ctx, pr.ID, pr.OwnerID, *name, list)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, k.Key)
	return nil
}

func cmdKeyList(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("key list", stderr, getenv, &cfg)
	project := fs.String("project", "", "project id (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" {
		return usagef("--project is required")
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	ks, err := svc.Store.ListAPIKeys(ctx, *project)
	if err != nil {
		return err
	}
	for _, k := range ks {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked " + *k.RevokedAt
		}
		fmt.Fprintf(stdout, "%s  %s…%s  %-20s  %s  %s\n", k.ID, k.Prefix, k.Last4, k.Name, strings.Join(k.Scopes, ","), state)
	}
	return nil
}

func cmdKeyRevoke(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("key revoke", stderr, getenv, &cfg)
	id := fs.String("key-id", "", "key id (required; see key list)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usagef("--key-id is required")
	}
	svc, closeFn, err := openService(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeFn()
	k, err := svc.Store.RevokeAPIKey(ctx, "", *id)
	if err != nil {
		return fmt.Errorf("key %s: %w", *id, err)
	}
	fmt.Fprintf(stdout, "revoked %s (%s…%s)\n", k.ID, k.Prefix, k.Last4)
	return nil
}
