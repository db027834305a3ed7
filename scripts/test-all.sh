#!/usr/bin/env bash
# Runs every test of Earshot on a fresh machine: Go unit and black-box tests
# with the race detector, then the end-to-end checks with independent
# clients (npm packages at pinned versions, Debian's chromium), which this
# script installs when they are missing.
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

step "all tests passed"
