#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for tests and benchmarks: a fresh data dir, a free loopback port,
# trust auth, fsync off (nothing in it outlives the run). Runs the server as an unprivileged user, since
# PostgreSQL refuses to run as root.
#
#   scripts/pg-throwaway.sh start DIR   prints the admin URL (postgres://gcm@127.0.0.1:PORT/postgres)
#   scripts/pg-throwaway.sh stop DIR    stops it and removes DIR
#
# The binaries come from Debian's postgresql package (/usr/lib/postgresql/<major>/bin) or PATH.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [[ -x "$candidate/initdb" ]]; then
    bindir=$candidate
    break
  fi
done
if [[ -z "$bindir" ]]; then
  if command -v initdb >/dev/null; then
    bindir=$(dirname "$(command -v initdb)")
  else
    echo "no PostgreSQL server binaries found: apt-get install postgresql" >&2
    exit 1
  fi
fi

# As root, run the server as the 'postgres' user Debian's package makes (or make an unprivileged one).
as_user() { "$@"; }
owner=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  owner=postgres
  id -u "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
  as_user() { runuser -u "$owner" -- "$@"; }
fi

case "$cmd" in
start)
  mkdir -p "$dir"
  chown "$owner" "$dir"
  chmod 700 "$dir"
  as_user "$bindir/initdb" -D "$dir/data" -U gcm --auth=trust --no-locale --encoding=UTF8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    >/dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
  echo "postgres://gcm@127.0.0.1:$port/postgres"
  ;;
stop)
  if [[ -d "$dir/data" ]]; then
    as_user "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
