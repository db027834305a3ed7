package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// healthcheckConfig is what `earshot healthcheck` reads: the same address
// and base URL settings as serve, so a container's one set of EARSHOT_*
// variables points both at the same listener.
type healthcheckConfig struct {
	Addr    string
	BaseURL string
	Timeout time.Duration
}

// cmdHealthcheck asks the local serve's /healthz and exits 0 when it answers
// 200 with status "ok", 1 otherwise with a one-line reason. It exists for
// Docker's HEALTHCHECK in an image without a shell or curl (distroless,
// scratch), and for systemd or cron checks that want an exit code.
func cmdHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg healthcheckConfig
	fs := &cliFlags{FlagSet: flag.NewFlagSet("earshot healthcheck", flag.ContinueOnError), getenv: getenv,
		vars: map[string]string{}, given: map[string]bool{}, fromEnv: map[string]bool{}}
	fs.SetOutput(stderr)
	fs.checkedVar(&cfg.Addr, "addr", "EARSHOT_ADDR", "127.0.0.1:8080", "the `address` serve listens on, host:port (a wildcard host is asked on loopback)", parseAddr)
	fs.checkedVar(&cfg.BaseURL, "base-url", "EARSHOT_BASE_URL", "", "serve's public base `URL`: only its path is used, as a prefix of /healthz", parseHTTPURL)
	checkedVar(fs, &cfg.Timeout, "timeout", "", 5*time.Second, "give up after this `duration`", parsePositiveDuration)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	urls, err := healthURLs(cfg.Addr, cfg.BaseURL)
	if err != nil {
		return usageError{err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	client := &http.Client{
		// The check goes straight to the local listener: no HTTP_PROXY
		// detour, and a redirect is an answer to report, not to follow.
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var res healthResult
	for i, u := range urls {
		res = checkHealth(ctx, client, u)
		// A base URL with a path: a proxy that passes the path on reaches
		// serve at the prefix, one that strips it at the root. Either
		// answer counts; only a 404 at the prefix sends the check on.
		if res.status != http.StatusNotFound || i == len(urls)-1 {
			break
		}
	}
	if res.err != nil {
		return res.err
	}
	fmt.Fprintf(stdout, "healthy: %s\n", res.summary)
	return nil
}

// healthURLs is the /healthz URL on the serve address, first under the base
// URL's path when it has one. A wildcard listen address (0.0.0.0, ::, or
// none as in ":8080") is asked on the loopback address of its family.
func healthURLs(addr, baseURL string) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	if port == "0" {
		return nil, fmt.Errorf("--addr %s has port 0 (any free port): give the port serve listens on", addr)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::", "[::]":
		host = "::1"
	}
	root := "http://" + net.JoinHostPort(host, port)
	var urls []string
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil {
			return nil, fmt.Errorf("--base-url: %w", err)
		}
		if p := strings.TrimRight(u.EscapedPath(), "/"); p != "" {
			urls = append(urls, root+p+"/healthz")
		}
	}
	return append(urls, root+"/healthz"), nil
}

type healthResult struct {
	status  int    // 0 when nothing answered
	summary string // for a healthy answer
	err     error  // the one-line reason when unhealthy
}

func checkHealth(ctx context.Context, client *http.Client, u string) healthResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return healthResult{err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return healthResult{err: fmt.Errorf("unhealthy: %s did not answer in time", u)}
		}
		var op *net.OpError
		if errors.As(err, &op) {
			err = op // "dial tcp 127.0.0.1:8080: connect: connection refused", without the URL twice
		}
		return healthResult{err: fmt.Errorf("unhealthy: %s: %v", u, err)}
	}
	defer resp.Body.Close()
	var body struct {
		Status     string            `json:"status"`
		Checks     map[string]string `json:"checks"`
		Backend    string            `json:"backend"`
		APIVersion string            `json:"api_version"`
	}
	decodeErr := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body)
	r := healthResult{status: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusOK && decodeErr == nil && body.Status == "ok":
		r.summary = fmt.Sprintf("%s (%s, API version %s)", u, body.Backend, body.APIVersion)
	case decodeErr != nil || body.Status == "":
		r.err = fmt.Errorf("unhealthy: %s answered HTTP %d, not Earshot's health answer", u, resp.StatusCode)
	default:
		var failed []string
		for k, v := range body.Checks {
			if v != "ok" {
				failed = append(failed, k+" "+v)
			}
		}
		sort.Strings(failed)
		reason := body.Status
		if len(failed) > 0 {
			reason += ": " + strings.Join(failed, ", ")
		}
		r.err = fmt.Errorf("unhealthy: %s answered HTTP %d, %s", u, resp.StatusCode, reason)
	}
	return r
}
