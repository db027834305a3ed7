#!/usr/bin/env bash
# Browser end-to-end test: builds earshot, creates a user, project and API
# key with the CLI, seeds mentions, starts `earshot serve` and drives the
# dashboard in real Chromium (playwright-core, test.mjs).
#   npm ci --prefix e2e/browser && e2e/browser/run.sh
# Env: SEED_N (mentions to seed, default 80), CHROMIUM (default /usr/bin/chromium), PORT,
# EARSHOT_DATABASE_URL (an empty PostgreSQL database: every earshot command
# and the seeder use it instead of the data dir).
set -euo pipefail
# Hermetic: no collector or webhook may leave loopback (the monitor the test
# creates fails its scans at once instead of contacting the platforms; the
# inbox holds exactly the seeded mentions). EARSHOT_REPLAY=1 would feed it
# the recorded platform responses instead.
export EARSHOT_LOOPBACK_ONLY=1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d)
DATA="$WORK/data"
# Where the seeder writes: the PostgreSQL database when the run uses one.
SEED_DATA="${EARSHOT_DATABASE_URL:-$DATA}"
mkdir -p "$HERE/output"

echo "building earshot and the seeder in $WORK"
(cd "$ROOT" && go build -o "$WORK/earshot" . && go build -o "$WORK/seed" ./e2e/browser/seed)
E="$WORK/earshot"

printf "%s\n" correct-horse-42 | "$E" user create --data "$DATA" --email owner@example.com --name "Olive Owner" >/dev/null
PROJECT_JSON=$("$E" project create --data "$DATA" --owner owner@example.com --name Acme --website https://acme.example)
PROJECT_ID=$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$PROJECT_JSON")
API_KEY=$("$E" key create --data "$DATA" --project "$PROJECT_ID" | tail -n 1)
if [ "${SEED_N:-80}" -ge 900 ]; then
  # Many seeded mentions use up the trial quota, and create_monitor would answer 402.
  "$E" project set-plan --data "$DATA" --project "$PROJECT_ID" --plan unlimited >/dev/null
fi
"$WORK/seed" --data "$SEED_DATA" --project "$PROJECT_ID" --n "${SEED_N:-80}"

PORT=${PORT:-$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
BASE="http://127.0.0.1:$PORT"
# Private webhook URLs allowed: the tests create one (to a closed local port)
# to check the webhooks pages with a row in their table.
EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1 "$E" serve --data "$DATA" --addr "127.0.0.1:$PORT" --log-level warn >"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
cleanup() {
  kill "$SERVE_PID" 2>/dev/null || true
  wait "$SERVE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Up to 5 minutes (a loaded machine builds and starts slowly); over as
# soon as /healthz answers, or the server exits.
for _ in $(seq 1 3000); do
  if curl -fsS "$BASE/healthz" >/dev/null 2>&1; then break; fi
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.1
done
curl -fsS "$BASE/healthz" >/dev/null

# test.mjs, then every test-*.mjs in name order, each against this server;
# ONLY=name.mjs runs one. All run even when one fails; the run fails if any did.
status=0
for t in "$HERE"/test.mjs $(ls "$HERE"/test-*.mjs 2>/dev/null); do
  if [ -n "${ONLY:-}" ] && [ "$(basename "$t")" != "$ONLY" ]; then continue; fi
  echo "--- $(basename "$t")"
  EARSHOT_URL="$BASE" EARSHOT_KEY="$API_KEY" EARSHOT_PROJECT="$PROJECT_ID" EARSHOT_DATA="$SEED_DATA" SEED_BIN="$WORK/seed" \
    node "$t" || status=$?
done
if [ "$status" -ne 0 ]; then
  echo "--- serve log ---"
  tail -n 50 "$WORK/serve.log"
fi
exit "$status"
