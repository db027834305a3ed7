package netguard

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Issue 25 M1: the collectors' client reaches the platform origins the
// operator configured as written (loopback in tests and the demo), follows
// redirects inside them, and refuses at connect time a redirect to any
// other origin the guard refuses (here another loopback port) unless
// private addresses are allowed.
func TestPlatformClientGuardsRedirects(t *testing.T) {
	var hits int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		io.WriteString(w, "internal")
	}))
	defer other.Close()
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusMovedPermanently)
		case "/scheme":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer platform.Close()
	trusted := []string{Origin(platform.URL)}

	get := func(c *http.Client, path string) (string, error) {
		resp, err := c.Get(platform.URL + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	c := NewPlatformClient(false, time.Minute, trusted)
	if body, err := get(c, "/moved"); err != nil || body != "ok" {
		t.Errorf("redirect inside the configured origin: %q, %v", body, err)
	}
	_, err := get(c, "/away")
	var ue *URLError
	if !errors.Is(err, ErrForbiddenAddress) || !errors.As(err, &ue) || ue.Reason != "the resolved address is a loopback address" {
		t.Errorf("redirect to another loopback origin: %v, want a refusal naming the rule", err)
	}
	if _, err := get(c, "/scheme"); !errors.Is(err, ErrInvalidURL) {
		t.Errorf("redirect to file://: %v", err)
	}
	if hits != 0 {
		t.Fatalf("the other origin was reached %d times", hits)
	}
	if body, err := get(NewPlatformClient(true, time.Minute, trusted), "/away"); err != nil || body != "internal" {
		t.Errorf("with private addresses allowed: %q, %v", body, err)
	}
	if _, err := NewPlatformClient(false, time.Minute, nil).Get(platform.URL); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("an origin nobody configured, on loopback: %v", err)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Mastodon.Social":        "mastodon.social:443",
		"http://127.0.0.1:8080/mastodon": "127.0.0.1:8080",
		"http://[::1]/x":                 "[::1]:80",
		"mastodon.social":                "",
		"ftp://example.com":              "",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}
