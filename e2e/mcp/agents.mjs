// Agent-shaped checks with the official TypeScript SDK: lean tool lists
// (toolsets, read-only), outputSchema validation (the SDK validates every
// structured result against the tool's outputSchema), get_brief, and the
// MCP authorization flow with the SDK's own OAuth client: discovery,
// dynamic registration, PKCE, consent (driven here as the person would,
// with a dashboard session), token, call, refresh, revocation.
//
//   EARSHOT_API_KEY=esk_… node agents.mjs BASE_URL EMAIL PASSWORD PROJECT_ID
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [BASE, EMAIL, PASSWORD, PROJECT] = process.argv.slice(2);
const KEY = process.env.EARSHOT_API_KEY;
let failures = 0;
function check(cond, msg) {
  console.log((cond ? "  ok   " : "  FAIL ") + msg);
  if (!cond) failures++;
}

async function connect(url, opts) {
  const client = new Client({ name: "earshot-e2e-agents", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), opts));
  return client;
}

// Lean lists.
const keyHeaders = { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } };
const all = await connect(BASE + "/mcp", keyHeaders);
const version = all.getServerVersion()?.version;
const want = process.env.EARSHOT_VERSION;
check(version && want && version.startsWith(want), `server version ${version} is the build's (earshot version: ${want})`);
const allTools = await all.listTools();
const allBytes = JSON.stringify(allTools).length;
check(!allTools.tools.some(t => t.name === "create_api_key" || t.name === "change_password"), "a key never sees session-only tools");
check(allTools.tools.every(t => t.outputSchema?.type === "object"), "every tool declares an outputSchema");
const lean = await connect(BASE + "/mcp?toolsets=triage&read_only=true", keyHeaders);
const leanTools = await lean.listTools();
const leanBytes = JSON.stringify(leanTools).length;
console.log(`  tools/list: default ${allTools.tools.length} tools ${allBytes} bytes; read-only triage ${leanTools.tools.length} tools ${leanBytes} bytes`);
check(leanBytes < 25 * 1024, `read-only triage list under 25 KB (${leanBytes})`);
check(leanTools.tools.every(t => t.annotations?.readOnlyHint), "read-only list holds read-only tools only");

// Structured results validate against outputSchema (the SDK throws otherwise).
const brief = await lean.callTool({ name: "get_brief", arguments: {} });
check(!brief.isError && brief.structuredContent?.data?.mentions !== undefined, "get_brief answers, valid against its outputSchema");
const ms = await all.callTool({ name: "list_mentions", arguments: { limit: 5 } });
check(!ms.isError, "list_mentions valid against its outputSchema");
const denied = await lean.callTool({ name: "update_mention_status", arguments: { id: "00000000-0000-4000-8000-000000000000", status: "done" } }).catch(e => ({ thrown: String(e) }));
check(denied.isError || denied.thrown, "a write tool on a read-only connection is refused");

// OAuth with the SDK's client.
const session = await (await fetch(BASE + "/api/v1/auth/sessions", {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
})).json();
const sessionToken = session.data.token;
class Provider {
  constructor() { this.authUrl = undefined; }
  get redirectUrl() { return "http://127.0.0.1:9/callback"; }
  get clientMetadata() {
    return { client_name: "e2e host", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none", scope: "mentions:read monitors:read" };
  }
  clientInformation() { return this._client; }
  saveClientInformation(c) { this._client = c; }
  tokens() { return this._tokens; }
  saveTokens(t) { this._tokens = t; }
  redirectToAuthorization(u) { this.authUrl = u; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
}
const provider = new Provider();
const first = new StreamableHTTPClientTransport(new URL(BASE + "/mcp"), { authProvider: provider });
const c1 = new Client({ name: "oauth-host", version: "1.0.0" });
let unauthorized = false;
try { await c1.connect(first); } catch (e) { unauthorized = /nauthorized/.test(String(e)); }
check(unauthorized && provider.authUrl && provider._client?.client_id, "the SDK discovered the server, registered, and asked for authorization");

// The person: the consent page with their dashboard session, approve.
const cookie = `earshot_session=${sessionToken}`;
const page = await (await fetch(provider.authUrl, { headers: { Cookie: cookie }, redirect: "manual" })).text();
const field = n => (page.match(new RegExp(`name="${n}" value="([^"]*)"`)) || [])[1] || "";
const unescape = s => s.replaceAll("&amp;", "&").replaceAll("&#43;", "+").replaceAll("&#39;", "'").replaceAll("&#34;", '"');
check(page.includes("Connect e2e host"), "consent page names the client");
const form = new URLSearchParams({ _csrf: field("_csrf"), decision: "approve", project_id: PROJECT });
for (const n of ["client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method", "response_type", "resource"]) form.set(n, unescape(field(n)));
form.append("grant", "mentions:read");
form.append("grant", "monitors:read");
const decided = await fetch(BASE + "/oauth/authorize", { method: "POST", headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" }, body: form, redirect: "manual" });
const back = new URL(decided.headers.get("location"));
const code = back.searchParams.get("code");
check(decided.status === 303 && code, "approval redirects back with a code");
await first.finishAuth(code);
check(provider._tokens?.access_token?.startsWith("eso_") && provider._tokens?.refresh_token, "the SDK exchanged the code (PKCE) for tokens");

const c2 = await connect(BASE + "/mcp", { authProvider: provider });
const t2 = await c2.listTools();
check(t2.tools.some(t => t.name === "list_mentions") && !t2.tools.some(t => t.name === "create_monitor"), "the token's scopes shape the tool list");
const r2 = await c2.callTool({ name: "list_mentions", arguments: { limit: 1 } });
check(!r2.isError, "a tool call with the OAuth access token");

// Refresh: an expired access token is refreshed by the SDK.
const oldRefresh = provider._tokens.refresh_token;
provider._tokens = { ...provider._tokens, access_token: "eso_expired" };
const c3 = await connect(BASE + "/mcp", { authProvider: provider });
const r3 = await c3.callTool({ name: "list_mentions", arguments: { limit: 1 } });
check(!r3.isError && provider._tokens.refresh_token !== oldRefresh, "the SDK refreshed the access token (refresh token rotated)");

// Revocation from the keys page ends the grant.
const keys = await (await fetch(BASE + "/api/v1/keys", { headers: { Authorization: `Bearer ${sessionToken}`, "Earshot-Project": PROJECT } })).json();
const grant = keys.data.keys.find(k => k.name === "OAuth: e2e host");
check(grant, "the grant is listed on the keys page");
const del = await fetch(BASE + "/api/v1/keys/" + grant.id, { method: "DELETE", headers: { Authorization: `Bearer ${sessionToken}`, "Earshot-Project": PROJECT } });
check(del.ok, "revoke the grant's key");
const afterRevoke = await fetch(BASE + "/api/v1/mentions", { headers: { Authorization: `Bearer ${provider._tokens.access_token}` } });
check(afterRevoke.status === 401, `the access token stops working (${afterRevoke.status})`);

console.log(failures ? `agents: ${failures} failure(s)` : "agents: all checks passed");
process.exit(failures ? 1 : 0);
