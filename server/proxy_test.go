package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/server"
	"earshot/store/storetest"
)

// These tests put Earshot behind a real reverse proxy (httputil's, as
// Caddy and nginx do it: X-Forwarded-For gets the address the proxy's
// client connected from) and make visitors connect from different loopback
// addresses (127.0.0.2, 127.0.0.3: all of 127/8 is the loopback on Linux),
// so every address is real and nothing leaves the machine.

// proxied is an Earshot server and a reverse proxy in front of it.
type proxied struct {
	t       *testing.T
	svc     *capability.Service
	earshot *httptest.Server // reached directly
	proxy   *httptest.Server // the reverse proxy, on 127.0.0.1
	logs    *syncBuffer      // Earshot's log, JSON lines
	ownerID string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(s.b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// newProxied starts Earshot trusting trusted, with its base URL at the
// proxy's address plus basePath, and a proxy that forwards the path
// unchanged.
func newProxied(t *testing.T, trusted, basePath string) *proxied {
	t.Helper()
	p := &proxied{t: t, logs: &syncBuffer{}}
	p.earshot = httptest.NewUnstartedServer(nil)
	p.proxy = httptest.NewUnstartedServer(nil)
	base := "http://" + p.proxy.Listener.Addr().String() + basePath
	st := storetest.Open(t)
	p.svc = capability.New(st, capability.Config{BaseURL: strings.TrimRight(base, "/"), PlanQuotas: map[string]int{"trial": 1000}},
		slog.New(slog.NewJSONHandler(p.logs, nil)))
	tp, err := server.ParseTrustedProxies(trusted)
	if err != nil {
		t.Fatal(err)
	}
	p.earshot.Config.Handler = server.New(p.svc, nil, server.Options{RateLimit: 10000, RateBurst: 10000, TrustedProxies: tp})
	p.earshot.Start()
	t.Cleanup(p.earshot.Close)
	target, _ := url.Parse(p.earshot.URL)
	p.proxy.Config.Handler = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.SetXForwarded()
		r.Out.Host = r.In.Host // as nginx's proxy_set_header Host $host
	}}
	p.proxy.Start()
	t.Cleanup(p.proxy.Close)
	u, err := p.svc.CreateUser(context.Background(), "owner@example.com", "right-password", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	p.ownerID = u.ID
	return p
}

// from is an HTTP client whose connections leave from the loopback address
// ip, with a cookie jar.
func from(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, c *http.Client, method, u, body string, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(b)}
}

func loginBody(password string) string {
	return `{"email":"owner@example.com","password":"` + password + `"}`
}

// One visitor spraying wrong passwords behind the proxy locks out that
// visitor only: the owner, connecting from elsewhere through the same
// proxy, logs in with the right password.
func TestLoginLimiterKeysTheForwardedClient(t *testing.T) {
	p := newProxied(t, "127.0.0.1", "")
	a, b := from(t, "127.0.0.2"), from(t, "127.0.0.3")
	login := p.proxy.URL + "/api/v1/auth/sessions"
	for i := 0; i < 35; i++ {
		send(t, a, "POST", login, loginBody("wrong"))
	}
	if r := send(t, a, "POST", login, loginBody("right-password")); r.status != http.StatusTooManyRequests {
		t.Fatalf("the sprayer is not limited: %d %s", r.status, r.body)
	}
	if r := send(t, b, "POST", login, loginBody("right-password")); r.status != http.StatusOK {
		t.Fatalf("the owner, from another address behind the same proxy, got %d: %s", r.status, r.body)
	}
	// The log names the visitor, not the proxy.
	var sawA bool
	for _, l := range p.logs.lines() {
		if l["msg"] == "request" && l["route"] == "/api/v1/auth/sessions" {
			if l["client"] == "127.0.0.1" {
				t.Fatalf("a request is logged with the proxy's address: %v", l)
			}
			sawA = sawA || l["client"] == "127.0.0.2"
		}
	}
	if !sawA {
		t.Fatal("no request line names the visitor 127.0.0.2")
	}
}

// A client that writes X-Forwarded-For or Forwarded itself, connecting
// directly (not from a trusted proxy), is its connection's address: it
// cannot escape the limiter by naming a new address with each try.
func TestForwardedHeadersFromAnUntrustedPeerAreIgnored(t *testing.T) {
	for name, trusted := range map[string]string{"none trusted": "", "another range trusted": "10.0.0.0/8, fd00::/8"} {
		t.Run(name, func(t *testing.T) {
			p := newProxied(t, trusted, "")
			a := from(t, "127.0.0.2")
			login := p.earshot.URL + "/api/v1/auth/sessions"
			for i := 0; i < 35; i++ {
				spoof := "198.51.100." + itoa(i+1)
				send(t, a, "POST", login, loginBody("wrong"), "X-Forwarded-For", spoof, "Forwarded", "for="+spoof, "X-Real-Ip", spoof)
			}
			r := send(t, a, "POST", login, loginBody("right-password"), "X-Forwarded-For", "198.51.100.200", "Forwarded", "for=198.51.100.200")
			if r.status != http.StatusTooManyRequests {
				t.Fatalf("spoofed forwarding headers changed the limiter's key: %d %s", r.status, r.body)
			}
			for _, l := range p.logs.lines() {
				if l["msg"] == "request" && l["client"] != "127.0.0.2" {
					t.Fatalf("the log believed a spoofed header: %v", l)
				}
			}
		})
	}
}

// Behind a chain of proxies the client is the right-most address that is
// not a trusted proxy: what the client wrote to the left of it is ignored,
// so rotating it does not escape the limiter.
func TestRightMostUntrustedAddressIsTheClient(t *testing.T) {
	p := newProxied(t, "127.0.0.1, 192.0.2.0/24", "")
	a := from(t, "127.0.0.2")
	login := p.proxy.URL + "/api/v1/auth/sessions"
	for i := 0; i < 35; i++ {
		// The client's own invented hop, then an inner trusted proxy
		// (192.0.2.10) that the outer proxy's appended address follows.
		send(t, a, "POST", login, loginBody("wrong"), "X-Forwarded-For", "203.0.113."+itoa(i+1)+", 192.0.2.10")
	}
	if r := send(t, a, "POST", login, loginBody("right-password"), "X-Forwarded-For", "203.0.113.99, 192.0.2.10"); r.status != http.StatusTooManyRequests {
		t.Fatalf("rotating the left-most X-Forwarded-For entry escaped the limiter: %d", r.status)
	}
	// A trusted proxy (127.0.0.1) forwarding for a trusted inner proxy
	// (192.0.2.10): the walk skips both and stops at the client.
	r := send(t, from(t, "127.0.0.1"), "POST", p.earshot.URL+"/api/v1/auth/sessions", loginBody("right-password"),
		"X-Forwarded-For", "203.0.113.5, 192.0.2.10")
	if r.status != http.StatusOK {
		t.Fatalf("login of 203.0.113.5: %d %s", r.status, r.body)
	}
	var clients []any
	for _, l := range p.logs.lines() {
		if l["msg"] == "request" {
			clients = append(clients, l["client"])
		}
	}
	for i, c := range clients[:len(clients)-1] {
		if c != "127.0.0.2" {
			t.Fatalf("request %d through the proxy logged client %v, want 127.0.0.2", i, c)
		}
	}
	if c := clients[len(clients)-1]; c != "203.0.113.5" {
		t.Fatalf("through two trusted proxies: client %v, want 203.0.113.5", c)
	}
}

// Forwarded (RFC 7239) from a trusted peer: quoted IPv6 with a port, the
// right-most untrusted element, its proto making cookies Secure.
func TestForwardedHeaderAndProtoFromATrustedPeer(t *testing.T) {
	p := newProxied(t, "127.0.0.1, 2001:db8:cafe::/48", "")
	c := from(t, "127.0.0.1")
	r := send(t, c, "GET", p.earshot.URL+"/login", "",
		"Forwarded", `for=192.0.2.60;proto=http, for="[2001:db8::17]:4711";proto=https;host=earshot.example.com, for="[2001:db8:cafe::9]"`)
	if r.status != http.StatusOK {
		t.Fatalf("GET /login: %d", r.status)
	}
	if sc := r.header.Get("Set-Cookie"); !strings.Contains(sc, "Secure") {
		t.Fatalf("https from a trusted proxy did not make the cookie Secure: %q", sc)
	}
	// Behind a proxy that appends to X-Forwarded-For (Caddy, nginx), a
	// Forwarded header the client wrote is passed through untouched: it
	// must not name the client.
	send(t, c, "GET", p.earshot.URL+"/login", "", "Forwarded", "for=192.0.2.66", "X-Forwarded-For", "192.0.2.66, 203.0.113.8")
	// The same header from an untrusted peer changes nothing.
	r2 := send(t, from(t, "127.0.0.2"), "GET", p.earshot.URL+"/login", "", "Forwarded", `for=192.0.2.60;proto=https`, "X-Forwarded-Proto", "https")
	if sc := r2.header.Get("Set-Cookie"); strings.Contains(sc, "Secure") {
		t.Fatalf("an untrusted peer's X-Forwarded-Proto made the cookie Secure: %q", sc)
	}
	var got []any
	for _, l := range p.logs.lines() {
		if l["msg"] == "request" {
			got = append(got, l["client"])
		}
	}
	if len(got) != 3 || got[0] != "2001:db8::17" || got[1] != "203.0.113.8" || got[2] != "127.0.0.2" {
		t.Fatalf("clients logged %v, want [2001:db8::17 203.0.113.8 127.0.0.2]", got)
	}
}

// Every request's log line: client, method, route (the pattern, not the
// path with its ids), status, duration and the request id the response
// carries.
func TestRequestLogLine(t *testing.T) {
	p := newProxied(t, "", "")
	c := from(t, "127.0.0.4")
	r := send(t, c, "GET", p.earshot.URL+"/api/v1/monitors/mon_doesnotexist", "")
	if r.status != http.StatusUnauthorized {
		t.Fatalf("status %d", r.status)
	}
	send(t, c, "GET", p.earshot.URL+"/mentions/men_123", "")
	var lines []map[string]any
	for _, l := range p.logs.lines() {
		if l["msg"] == "request" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("want 2 request lines, got %v", lines)
	}
	l := lines[0]
	if l["client"] != "127.0.0.4" || l["method"] != "GET" || l["route"] != "/api/v1/monitors/:id" || l["status"] != float64(401) ||
		l["request_id"] != r.header.Get("X-Request-Id") || l["capability"] != "get_monitor" {
		t.Fatalf("API line %v (X-Request-Id %s)", l, r.header.Get("X-Request-Id"))
	}
	if _, ok := l["duration_ms"].(float64); !ok {
		t.Fatalf("no duration: %v", l)
	}
	if l := lines[1]; l["route"] != "/mentions/:id" || l["status"] != float64(303) || !strings.HasPrefix(l["request_id"].(string), "req_") {
		t.Fatalf("dashboard line %v", l)
	}
}

var siteLink = regexp.MustCompile(`\s(?:href|action|src|data-src)="(/[^"]*)"`)

// checkLinks fails when a page links to a site path outside base.
func checkLinks(t *testing.T, what, html, base string) {
	t.Helper()
	n := 0
	for _, m := range siteLink.FindAllStringSubmatch(html, -1) {
		n++
		if !strings.HasPrefix(m[1], base+"/") {
			t.Errorf("%s links to %s, outside %s/", what, m[1], base)
		}
	}
	if n == 0 {
		t.Errorf("%s has no site links to check", what)
	}
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// Earshot under https://host/earshot/ behind a proxy that passes the path
// through: the dashboard's login flow, a form's Post/Redirect/Get, its
// static files and links, the API, the OpenAPI servers, MCP and the docs
// all live under the path.
func TestServedUnderABasePath(t *testing.T) {
	p := newProxied(t, "127.0.0.1", "/earshot/")
	base := "/earshot"
	root := p.proxy.URL + base
	c := from(t, "127.0.0.2")

	if r := send(t, c, "GET", root, ""); r.status != http.StatusMovedPermanently || r.header.Get("Location") != base+"/" {
		t.Fatalf("GET /earshot: %d %q", r.status, r.header.Get("Location"))
	}
	r := send(t, c, "GET", root+"/", "")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != base+"/login" {
		t.Fatalf("GET /earshot/ without a session: %d → %q", r.status, r.header.Get("Location"))
	}
	r = send(t, c, "GET", root+"/login", "")
	if r.status != http.StatusOK {
		t.Fatalf("login page %d", r.status)
	}
	checkLinks(t, "the login page", r.body, base)
	if sc := r.header.Get("Set-Cookie"); !strings.Contains(sc, "Path="+base+"/") {
		t.Fatalf("pre-login cookie %q not scoped to %s/", sc, base)
	}
	for _, m := range siteLink.FindAllStringSubmatch(r.body, -1) {
		if strings.Contains(m[1], "/static/") {
			if s := send(t, c, "GET", p.proxy.URL+m[1], ""); s.status != http.StatusOK {
				t.Fatalf("static file %s: %d", m[1], s.status)
			}
		}
	}
	tok := csrfField.FindStringSubmatch(r.body)
	if tok == nil {
		t.Fatal("no CSRF token on the login page")
	}
	form := url.Values{"email": {"owner@example.com"}, "password": {"right-password"}, "_csrf": {tok[1]}, "next": {"/monitors"}}
	req, _ := http.NewRequest("POST", root+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.proxy.URL)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != base+"/monitors" {
		t.Fatalf("login: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	if sc := res.Header.Values("Set-Cookie"); !strings.Contains(strings.Join(sc, "\n"), "earshot_session=") || !strings.Contains(strings.Join(sc, "\n"), "Path="+base+"/") {
		t.Fatalf("session cookie %q", sc)
	}
	// A user without a project is sent to create one; the form's PRG
	// lands under the path.
	r = send(t, c, "GET", root+"/monitors", "")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != base+"/projects/new" {
		t.Fatalf("no project yet: %d → %q", r.status, r.header.Get("Location"))
	}
	r = send(t, c, "GET", root+"/projects/new", "")
	checkLinks(t, "the new-project page", r.body, base)
	tok = csrfField.FindStringSubmatch(r.body)
	form = url.Values{"name": {"Acme"}, "_csrf": {tok[1]}, "_back": {"/projects/new"}}
	req, _ = http.NewRequest("POST", root+"/a/create_project", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.proxy.URL)
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), base+"/") {
		t.Fatalf("create_project form: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	r = send(t, c, "GET", root+"/", "")
	if r.status != http.StatusOK {
		t.Fatalf("inbox: %d %s", r.status, r.body)
	}
	checkLinks(t, "the inbox", r.body, base)
	if !strings.Contains(r.body, "Acme") {
		t.Fatal("the inbox does not show the new project")
	}

	// The API, with a key of the new project.
	login := send(t, c, "POST", root+"/api/v1/auth/sessions", loginBody("right-password"))
	var sess struct{ Data struct{ Token string } }
	json.Unmarshal([]byte(login.body), &sess)
	if login.status != http.StatusOK || sess.Data.Token == "" {
		t.Fatalf("API login under the path: %d %s", login.status, login.body)
	}
	mon := send(t, c, "POST", root+"/api/v1/monitors", `{"name":"Brand","keywords":["acme"]}`, "Authorization", "Bearer "+sess.Data.Token)
	if mon.status != http.StatusOK {
		t.Fatalf("create_monitor under the path: %d %s", mon.status, mon.body)
	}
	if r := send(t, c, "GET", p.proxy.URL+"/api/v1/monitors", "", "Authorization", "Bearer "+sess.Data.Token); r.status != http.StatusNotFound || !strings.Contains(r.body, "/earshot/") {
		t.Fatalf("the API outside the base path: %d %s", r.status, r.body)
	}
	if r := send(t, c, "GET", p.earshot.URL+"/healthz", ""); r.status != http.StatusOK {
		t.Fatalf("/healthz at the root (probes): %d", r.status)
	}

	// OpenAPI's server is the base URL.
	var doc struct{ Servers []struct{ URL string } }
	oa := send(t, c, "GET", root+"/api/v1/openapi.json", "")
	json.Unmarshal([]byte(oa.body), &doc)
	if len(doc.Servers) != 1 || doc.Servers[0].URL != root {
		t.Fatalf("OpenAPI servers %v, want %s", doc.Servers, root)
	}
	// The docs link under the path and name the MCP endpoint there.
	docs := send(t, c, "GET", root+"/docs", "")
	checkLinks(t, "the docs", docs.body, base)
	if !strings.Contains(docs.body, root+"/mcp") {
		t.Fatal("the docs do not name the MCP endpoint under the base path")
	}

	// MCP under the path, as a client configured with that URL uses it.
	projects := send(t, c, "GET", root+"/api/v1/projects", "", "Authorization", "Bearer "+sess.Data.Token)
	var pl struct {
		Data struct{ Projects []struct{ ID string } }
	}
	json.Unmarshal([]byte(projects.body), &pl)
	if len(pl.Data.Projects) == 0 {
		t.Fatalf("projects: %s", projects.body)
	}
	k, err := p.svc.IssueKey(context.Background(), pl.Data.Projects[0].ID, p.ownerID, "mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: root + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{k.Key}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("MCP under the base path: %v", err)
	}
	defer cs.Close()
	out, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_monitors", Arguments: map[string]any{}})
	if err != nil || out.IsError {
		t.Fatalf("list_monitors over MCP: %v %v", err, out)
	}
	if b, _ := json.Marshal(out.StructuredContent); !strings.Contains(string(b), "Brand") {
		t.Fatalf("list_monitors: %s", b)
	}
}
