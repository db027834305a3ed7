package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/server"
	"earshot/ui"
)

// oauthHTTP does one request without following redirects.
func oauthHTTP(t *testing.T, method, u, cookie string, form url.Values, jsonBody string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else if jsonBody != "" {
		body = strings.NewReader(jsonBody)
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if jsonBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: ui.SessionCookie, Value: cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func pkcePair() (verifier, challenge string) {
	verifier = "v3rifier-" + strings.Repeat("abcdefgh", 6)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

var oauthCSRFField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// TestOAuthRemoteMCP walks the MCP authorization flow a remote host runs:
// discovery from the 401, registration, consent on the dashboard, code
// exchange with PKCE, MCP calls with the access token, refresh with
// rotation, and revocation from the keys page.
func TestOAuthRemoteMCP(t *testing.T) {
	e := newEnv(t)
	base := e.http.URL

	// Discovery: the 401 of /mcp names the resource metadata.
	res, _ := oauthHTTP(t, "POST", base+"/mcp", "", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	wa := res.Header.Get("WWW-Authenticate")
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(wa)
	if res.StatusCode != 401 || m == nil {
		t.Fatalf("/mcp without a token: %d %q", res.StatusCode, wa)
	}
	_, body := oauthHTTP(t, "GET", m[1], "", nil, "")
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.Unmarshal([]byte(body), &prm)
	if prm.Resource != base+"/mcp" || len(prm.AuthorizationServers) != 1 {
		t.Fatalf("protected resource metadata: %s", body)
	}
	_, body = oauthHTTP(t, "GET", prm.AuthorizationServers[0]+"/.well-known/oauth-authorization-server", "", nil, "")
	var asm map[string]any
	json.Unmarshal([]byte(body), &asm)
	if asm["token_endpoint"] != base+"/oauth/token" || !strings.Contains(body, `"S256"`) {
		t.Fatalf("authorization server metadata: %s", body)
	}

	// Registration.
	res, body = oauthHTTP(t, "POST", base+"/oauth/register", "", nil, `{"client_name":"Test host","redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal([]byte(body), &reg)
	if res.StatusCode != 201 || reg.ClientID == "" {
		t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	if res, body := oauthHTTP(t, "POST", base+"/oauth/register", "", nil, `{"redirect_uris":["http://evil.example/cb"]}`); res.StatusCode != 400 || !strings.Contains(body, "invalid_redirect_uri") {
		t.Errorf("http redirect to a public host: %d %s", res.StatusCode, body)
	}

	verifier, challenge := pkcePair()
	authURL := func(redirect, scope string) string {
		q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {redirect}, "state": {"st-1"},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {scope}, "resource": {base + "/mcp"}}
		return base + "/oauth/authorize?" + q.Encode()
	}
	// Not logged in: to the login page, coming back here after.
	res, _ = oauthHTTP(t, "GET", authURL("http://127.0.0.1:9/cb", "mentions:read"), "", nil, "")
	if loc := res.Header.Get("Location"); res.StatusCode != 303 || !strings.HasPrefix(loc, "/login?next=%2Foauth%2Fauthorize") {
		t.Errorf("consent without a session: %d %s", res.StatusCode, loc)
	}
	// A redirect_uri the client did not register is shown, never followed.
	res, _ = oauthHTTP(t, "GET", authURL("http://127.0.0.1:9/other", "mentions:read"), e.sessionA, nil, "")
	if res.StatusCode != 400 || res.Header.Get("Location") != "" {
		t.Errorf("unregistered redirect_uri: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	approve := func(decision string, grants ...string) *url.URL {
		t.Helper()
		res, page := oauthHTTP(t, "GET", authURL("http://127.0.0.1:5555/cb", "mentions:read monitors:read"), e.sessionA, nil, "")
		if res.StatusCode != 200 || !strings.Contains(page, "Connect Test host") {
			t.Fatalf("consent page: %d %s", res.StatusCode, page)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:5555") {
			t.Errorf("consent CSP %q does not allow the form to reach the client", csp)
		}
		f := url.Values{"_csrf": {oauthCSRFField.FindStringSubmatch(page)[1]}, "decision": {decision}, "project_id": {e.projA.ID}, "grant": grants}
		for _, k := range []string{"client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method", "response_type", "resource"} {
			v := regexp.MustCompile(`name="` + k + `" value="([^"]*)"`).FindStringSubmatch(page)
			f.Set(k, htmlUnescape(v[1]))
		}
		res, _ = oauthHTTP(t, "POST", base+"/oauth/authorize", e.sessionA, f, "")
		loc, err := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != 303 || err != nil || loc.Host != "127.0.0.1:5555" || loc.Query().Get("state") != "st-1" {
			t.Fatalf("decision %s: %d %v", decision, res.StatusCode, res.Header.Get("Location"))
		}
		return loc
	}
	if loc := approve("deny"); loc.Query().Get("error") != "access_denied" {
		t.Errorf("deny: %v", loc)
	}
	code := approve("approve", "mentions:read", "monitors:read").Query().Get("code")
	token := func(f url.Values) (int, map[string]any) {
		res, body := oauthHTTP(t, "POST", base+"/oauth/token", "", f, "")
		var out map[string]any
		json.Unmarshal([]byte(body), &out)
		return res.StatusCode, out
	}
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {reg.ClientID}, "code": {code}, "redirect_uri": {"http://127.0.0.1:5555/cb"}, "code_verifier": {verifier}}
	bad := url.Values{}
	for k, v := range exchange {
		bad[k] = v
	}
	bad.Set("code_verifier", strings.Repeat("x", 50))
	if st, out := token(bad); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("wrong verifier: %d %v", st, out)
	}
	// The failed exchange used the code up (single use).
	if st, out := token(exchange); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("code after a failed exchange: %d %v", st, out)
	}
	exchange.Set("code", approve("approve", "mentions:read", "monitors:read").Query().Get("code"))
	st, tok := token(exchange)
	if st != 200 || tok["token_type"] != "Bearer" || tok["scope"] != "mentions:read monitors:read" {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	if st, out := token(exchange); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("code replay: %d %v", st, out)
	}

	// MCP with the access token: only what the scopes allow is listed.
	connect := func(access string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{access}}}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	}
	cs, err := connect(tok["access_token"].(string))
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := listTools(t, cs)
	if tools["list_mentions"] == nil || tools["list_monitors"] == nil || tools["create_monitor"] != nil || tools["create_alert"] != nil {
		t.Errorf("tools for mentions:read monitors:read: %v", keys(tools))
	}
	if a := callTool(t, cs, "list_mentions", nil); a.isError {
		t.Errorf("list_mentions with the access token: %v", a.env)
	}
	cs.Close()

	// Refresh rotates: the old refresh token stops working.
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {reg.ClientID}, "refresh_token": {tok["refresh_token"].(string)}}
	st, tok2 := token(refresh)
	if st != 200 || tok2["access_token"] == tok["access_token"] {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	if st, out := token(refresh); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("refresh token reuse: %d %v", st, out)
	}

	// The grant is a key on the keys page; revoking it ends the tokens.
	keysRes := e.do("GET", "/api/v1/keys", e.sessionA, nil)
	var keyID string
	for _, k := range keysRes.data()["keys"].([]any) {
		if km := k.(map[string]any); km["name"] == "OAuth: Test host" {
			keyID = km["id"].(string)
		}
	}
	if keyID == "" {
		t.Fatalf("no OAuth key listed: %s", keysRes.raw)
	}
	e.do("DELETE", "/api/v1/keys/"+keyID, e.sessionA, nil).ok()
	res, _ = oauthHTTP(t, "POST", base+"/mcp", "", nil, "")
	req, _ := http.NewRequest("GET", base+"/api/v1/mentions", nil)
	req.Header.Set("Authorization", "Bearer "+tok2["access_token"].(string))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 401 {
		t.Errorf("access token after the key was revoked: %d", r2.StatusCode)
	}
	if st, out := token(url.Values{"grant_type": {"refresh_token"}, "client_id": {reg.ClientID}, "refresh_token": {tok2["refresh_token"].(string)}}); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("refresh after revocation: %d %v", st, out)
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&#43;", "+").Replace(s)
}

// registerFrom registers a client as if from addr (X-Forwarded-For, which
// the test server believes from its loopback proxy).
func registerFrom(t *testing.T, base, addr, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/oauth/register", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.Header.Set("X-Forwarded-For", addr)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// Open registration is limited per client address: 20 at once, then a 429
// in RFC 7591's error shape with Retry-After. Another address is not
// affected; an IPv6 client is its /64. The per-credential limit is set
// high, so only the registration limit can answer 429.
func TestOAuthRegistrationLimitedPerAddress(t *testing.T) {
	tp, err := server.ParseTrustedProxies("127.0.0.1,::1")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, server.Options{RateLimit: 10000, RateBurst: 10000, TrustedProxies: tp})
	const client = `{"client_name":"Flood","redirect_uris":["http://127.0.0.1:9/cb"]}`
	exhaust := func(addr string) {
		t.Helper()
		for i := range 20 {
			if res, body := registerFrom(t, e.http.URL, addr, client); res.StatusCode != 201 {
				t.Fatalf("registration %d from %s: %d %s", i+1, addr, res.StatusCode, body)
			}
		}
	}
	limited := func(addr string) {
		t.Helper()
		res, body := registerFrom(t, e.http.URL, addr, client)
		var got struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.Unmarshal([]byte(body), &got)
		ra, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.StatusCode != 429 || got.Error != "too_many_requests" || got.Description == "" || ra < 1 || ra > 3600 {
			t.Errorf("registration past the limit from %s: %d Retry-After %q %s", addr, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
	}
	allowed := func(addr string) {
		t.Helper()
		if res, body := registerFrom(t, e.http.URL, addr, client); res.StatusCode != 201 {
			t.Errorf("registration from %s: %d %s, want 201", addr, res.StatusCode, body)
		}
	}

	exhaust("203.0.113.7")
	limited("203.0.113.7")
	allowed("203.0.113.8")

	exhaust("2001:db8:1:2::1")
	limited("2001:db8:1:2::99") // the same /64
	allowed("2001:db8:1:3::1")
}

// The metadata is bounded with a clear RFC 7591 error: at most 10
// redirect_uris of at most 2000 bytes each, a body of at most 64 KiB.
func TestOAuthRegistrationBounds(t *testing.T) {
	e := newEnv(t)
	uris := func(n, size int) string {
		var us []string
		for i := range n {
			u := "https://host.example/cb" + strconv.Itoa(i)
			u += strings.Repeat("a", max(0, size-len(u)))
			us = append(us, strconv.Quote(u))
		}
		return `{"client_name":"Big","redirect_uris":[` + strings.Join(us, ",") + `]}`
	}
	for _, c := range []struct {
		name, body, code, says string
	}{
		{"11 redirect_uris", uris(11, 30), "invalid_redirect_uri", "1 to 10"},
		{"no redirect_uris", uris(0, 30), "invalid_redirect_uri", "1 to 10"},
		{"a 2001-byte redirect_uri", uris(1, 2001), "invalid_redirect_uri", "at most 2000 bytes"},
		{"a 65 KiB body", `{"client_name":"` + strings.Repeat("x", 65<<10) + `","redirect_uris":["https://host.example/cb"]}`, "invalid_client_metadata", "64 KiB"},
	} {
		res, body := registerFrom(t, e.http.URL, "", c.body)
		if res.StatusCode != 400 || !strings.Contains(body, `"error":"`+c.code+`"`) || !strings.Contains(body, c.says) || len(body) > 1000 {
			t.Errorf("%s: %d %.300s", c.name, res.StatusCode, body)
		}
	}
	if res, body := registerFrom(t, e.http.URL, "", uris(10, 2000)); res.StatusCode != 201 {
		t.Errorf("10 redirect_uris of 2000 bytes: %d %.300s", res.StatusCode, body)
	}
}
