#!/usr/bin/env bash
# End-to-end check of earshot's agent faces with clients nobody here wrote:
# the official TypeScript MCP SDK over stdio (earshot mcp) and over
# streamable HTTP (serve's /mcp), and Redocly CLI on /api/v1/openapi.json.
# Needs: go, node, and `npm ci --prefix e2e/mcp` done first.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
# Hermetic: serve answers every platform from its recorded responses on a
# loopback server (EARSHOT_REPLAY), and refuses any non-loopback connection
# (EARSHOT_LOOPBACK_ONLY), so the monitor created below contacts nobody.
export EARSHOT_REPLAY=1 EARSHOT_LOOPBACK_ONLY=1

if [ ! -d "$HERE/node_modules/@modelcontextprotocol/sdk" ] || [ ! -x "$HERE/node_modules/.bin/redocly" ]; then
  echo "e2e/mcp: node_modules missing; run: npm ci --prefix e2e/mcp" >&2
  exit 1
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "build"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$WORK/earshot" .)
BIN="$WORK/earshot"
DATA="$WORK/data"

step "user, project and key through the CLI"
printf "%s\n" e2e-password-1 | "$BIN" user create --data "$DATA" --email e2e@example.com >/dev/null
PROJECT_JSON="$("$BIN" project create --data "$DATA" --owner e2e@example.com --name "E2E Brand")"
PROJECT_ID="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).id)' "$PROJECT_JSON")"
KEY="$("$BIN" key create --data "$DATA" --project "$PROJECT_ID" | tail -n 1)"
echo "project $PROJECT_ID, key ${KEY:0:8}…"

step "serve"
PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')"
BASE="http://127.0.0.1:$PORT"
"$BIN" serve --data "$DATA" --addr "127.0.0.1:$PORT" >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
# Up to 5 minutes (a loaded machine builds and starts slowly); over as
# soon as /healthz answers, or the server exits.
for _ in $(seq 1 3000); do
  if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$BASE/healthz"; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$BASE/healthz" || { cat "$WORK/serve.log" >&2; exit 1; }
echo "serving on $BASE"

# Something for list_monitors to return.
node -e '
const [base, key] = process.argv.slice(1);
fetch(base + "/api/v1/monitors", {method: "POST", headers: {Authorization: "Bearer " + key, "Content-Type": "application/json"},
  body: JSON.stringify({name: "E2E brand", keywords: ["earshot", "earshot.dev"], sources: ["hn"]})})
  .then(async r => { if (!r.ok) { console.error(r.status, await r.text()); process.exit(1) } })' "$BASE" "$KEY"

step "MCP over stdio (TypeScript SDK client -> earshot mcp)"
EARSHOT_API_KEY="$KEY" node "$HERE/client.mjs" stdio "$BIN" mcp --data "$DATA" --log-level warn

step "MCP over streamable HTTP (TypeScript SDK client -> $BASE/mcp)"
EARSHOT_API_KEY="$KEY" node "$HERE/client.mjs" http "$BASE/mcp"

step "/mcp without a credential answers 401 with WWW-Authenticate: Bearer"
node -e '
fetch(process.argv[1], {method: "POST", headers: {"Content-Type": "application/json", Accept: "application/json, text/event-stream"},
  body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/list"})})
  .then(r => { console.log(r.status, r.headers.get("www-authenticate")); process.exit(r.status === 401 && /^Bearer/.test(r.headers.get("www-authenticate") || "") ? 0 : 1) })' "$BASE/mcp"

step "Agents: lean lists, outputSchema, get_brief and the OAuth flow (TypeScript SDK)"
EARSHOT_VERSION="$("$BIN" version | head -n 1 | cut -d' ' -f2)" EARSHOT_API_KEY="$KEY" node "$HERE/agents.mjs" "$BASE" e2e@example.com e2e-password-1 "$PROJECT_ID"

step "OpenAPI lint (Redocly CLI)"
node -e 'fetch(process.argv[1]).then(async r=>{if(!r.ok)process.exit(1);require("fs").writeFileSync(process.argv[2], await r.text())})' \
  "$BASE/api/v1/openapi.json" "$WORK/openapi.json"
"$HERE/node_modules/.bin/redocly" lint --format=stylish "$WORK/openapi.json"

step "e2e/mcp: all checks passed"
