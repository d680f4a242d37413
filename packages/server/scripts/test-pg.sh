#!/usr/bin/env bash
# Runs the test suite on PostgreSQL: on the server named by GCM_TEST_DATABASE_URL (an admin URL; each test
# service creates a database of its own there), or else on a throw-away cluster started here and removed
# afterwards (needs Debian's postgresql package, or initdb on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n "${GCM_TEST_DATABASE_URL:-}" ]]; then
  exec npm run test:unit
fi
work=$(mktemp -d /tmp/gcm-test-pg.XXXXXX)
# The server runs as the unprivileged 'postgres' user when we are root: it must reach its data dir.
chmod 755 "$work"
trap 'scripts/pg-throwaway.sh stop "$work/cluster"; rm -rf "$work"' EXIT
GCM_TEST_DATABASE_URL=$(scripts/pg-throwaway.sh start "$work/cluster")
export GCM_TEST_DATABASE_URL
echo "test suite on PostgreSQL at $GCM_TEST_DATABASE_URL"
npm run test:unit
