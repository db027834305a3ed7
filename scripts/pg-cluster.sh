#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks, from Debian's
# postgresql package (installed when missing). It listens on 127.0.0.1 only
# and lives in DIR; nothing outside DIR is touched.
#
#   scripts/pg-cluster.sh start DIR [PORT]   prints the database URL
#   scripts/pg-cluster.sh stop DIR
#
# As root the server runs as the "postgres" user (PostgreSQL refuses root).
# For tests the cluster trades durability for speed (fsync off); set
# PG_DURABLE=1 for benchmarks that should measure real commits.
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?directory}
port=${3:-55432}

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
if [ "$cmd" = start ] && [ -z "$(bindir)" ]; then
  echo "installing Debian's postgresql" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
fi
bin=$(bindir)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case $cmd in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$dir/data" -U earshot --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
  fi
  opts="-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=400 -c shared_buffers=256MB"
  if [ "${PG_DURABLE:-}" != 1 ]; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null
  as_pg "$bin/psql" -h 127.0.0.1 -p "$port" -U earshot -d postgres -qAt \
    -c "SELECT 1 FROM pg_database WHERE datname = 'earshot'" | grep -q 1 ||
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U earshot earshot
  echo "postgres://earshot@127.0.0.1:$port/earshot?sslmode=disable"
  ;;
stop)
  as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
*)
  echo "usage: $0 start|stop DIR [PORT]" >&2
  exit 2
  ;;
esac
