#!/usr/bin/env bash
# Runs every test of Earshot on a fresh machine: Go unit and black-box tests
# with the race detector, then the end-to-end checks with independent
# clients (npm packages at pinned versions, Debian's chromium), which this
# script installs when they are missing. Then the same store, server and
# end-to-end tests again on PostgreSQL: a throwaway cluster from Debian's
# postgresql package (installed when missing) in a temp dir on a loopback
# port, stopped and removed at exit. PG_TESTS=0 skips that second pass.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# Hermetic: no test may reach a non-loopback address. Go tests refuse one
# by themselves (testing.Testing); the binaries the end-to-end scripts start
# inherit this switch, and answer every platform from recorded responses.
export EARSHOT_LOOPBACK_ONLY=1

# apt_install PKG...: Debian packages, as root or through sudo.
apt_install() {
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
}

# The race detector needs cgo, hence a C compiler.
if ! command -v gcc >/dev/null 2>&1; then
  step "installing gcc (go test -race needs a C compiler)"
  apt_install gcc libc6-dev
fi

# deploy/'s NOTICE test lists the modules of every release target (some
# only on darwin) from the module cache, with the network off.
step "go mod download"
go mod download

# deploy/'s unit test runs systemd-analyze verify on deploy/earshot.service.
if ! command -v systemd-analyze >/dev/null 2>&1; then
  step "installing systemd (systemd-analyze verifies deploy/earshot.service)"
  apt_install systemd
fi

step "go vet"
go vet ./...

step "node packages for the end-to-end checks (pinned in package-lock.json)"
for d in e2e/*/; do
  if [ -f "$d/package-lock.json" ]; then
    npm ci --prefix "$d" --no-audit --no-fund --loglevel=error
  fi
done

if [ -d e2e/browser ] && ! command -v chromium >/dev/null 2>&1; then
  step "installing Debian's chromium for the browser tests"
  apt_install chromium
fi

step "go test -race ./...  (unit, black-box HTTP/MCP/CLI, webhook verification with the npm standardwebhooks library)"
CGO_ENABLED=1 go test -race -count=1 -timeout 30m ./...

for script in e2e/mcp/run.sh e2e/browser/run.sh; do
  if [ -x "$script" ]; then
    step "$script"
    "$script"
  fi
done

if [ "${PG_TESTS:-1}" != 0 ]; then
  PG_DIR=$(mktemp -d /tmp/earshot-pg-XXXXXX)
  stop_pg() {
    scripts/pg-cluster.sh stop "$PG_DIR" 2>/dev/null || true
    rm -rf "$PG_DIR"
  }
  trap stop_pg EXIT
  # A free loopback port: these are in Linux's ephemeral range, so a port
  # nobody listens on may still be held by a client socket (TIME_WAIT of
  # an earlier run's connection); the next port is tried then.
  step "PostgreSQL: a throwaway cluster in $PG_DIR (Debian's postgresql)"
  PG_URL=""
  for PG_PORT in $(seq 55600 55699); do
    if command -v ss >/dev/null 2>&1 && [ -n "$(ss -tanH "( sport = :$PG_PORT )")" ]; then continue; fi
    if PG_URL=$(scripts/pg-cluster.sh start "$PG_DIR" "$PG_PORT"); then break; fi
  done
  if [ -z "$PG_URL" ]; then
    tail -20 "$PG_DIR/server.log" >&2 || true
    echo "could not start PostgreSQL on a port from 55600 to 55699" >&2
    exit 1
  fi
  echo "listening on 127.0.0.1:$PG_PORT"
  "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version

  # Every test opening its store through store/storetest gets a fresh
  # schema of this database. Without -race: the race detector's pass above
  # already ran the same code; this pass checks the SQL on the other engine.
  step "go test on PostgreSQL (store, capability, server, delivery, collectors, spikes, dashboard, CLI and the two-process test)"
  EARSHOT_TEST_DATABASE_URL="$PG_URL" go test -count=1 -timeout 20m \
    ./store/... ./capability ./server ./deliver ./collect ./spike ./ui ./internal/cli

  # The MCP end-to-end check with its own database: every earshot command
  # it runs reads EARSHOT_DATABASE_URL.
  if [ -x e2e/mcp/run.sh ]; then
    step "e2e/mcp/run.sh on PostgreSQL"
    "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql" "$PG_URL" -qc 'CREATE DATABASE e2e_mcp'
    EARSHOT_DATABASE_URL="postgres://earshot@127.0.0.1:$PG_PORT/e2e_mcp?sslmode=disable" e2e/mcp/run.sh
  fi
  if [ -x e2e/browser/run.sh ]; then
    step "e2e/browser/run.sh on PostgreSQL"
    "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql" "$PG_URL" -qc 'CREATE DATABASE e2e_browser'
    EARSHOT_DATABASE_URL="postgres://earshot@127.0.0.1:$PG_PORT/e2e_browser?sslmode=disable" e2e/browser/run.sh
  fi
fi

step "all tests passed"
