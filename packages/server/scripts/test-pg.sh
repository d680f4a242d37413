#!/usr/bin/env bash
# Runs the test suite on PostgreSQL: on the server named by GCM_TEST_DATABASE_URL (an admin URL; each test
# service creates a database of its own there), or else on a throw-away cluster started here and removed
# afterwards (needs Debian's postgresql package, or initdb on PATH).
#
# Where Ceph's RADOS Gateway is installed (Debian's ceph-mon, ceph-osd and radosgw; .ci/run installs them)
# and GCM_TEST_S3 is unset, this run's S3 tests go to a throw-away RGW (scripts/s3-throwaway.sh), which
# checks SigV4 signatures and has every multipart call; the SQLite run keeps npm's s3rver.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/gcm-test-pg.XXXXXX)
# The server runs as the unprivileged 'postgres' user when we are root: it must reach its data dir.
chmod 755 "$work"
cleanup() {
  if [[ -d "$work/rgw" ]]; then scripts/s3-throwaway.sh stop "$work/rgw" || true; fi
  if [[ -d "$work/cluster" ]]; then scripts/pg-throwaway.sh stop "$work/cluster" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${GCM_TEST_S3:-}" ]] && command -v radosgw >/dev/null && command -v ceph-mon >/dev/null; then
  GCM_TEST_S3=$(scripts/s3-throwaway.sh start "$work/rgw")
  export GCM_TEST_S3
  echo "S3 tests on a throw-away Ceph RGW: $GCM_TEST_S3"
fi
if [[ -z "${GCM_TEST_DATABASE_URL:-}" ]]; then
  GCM_TEST_DATABASE_URL=$(scripts/pg-throwaway.sh start "$work/cluster")
  export GCM_TEST_DATABASE_URL
fi
echo "test suite on PostgreSQL at $GCM_TEST_DATABASE_URL"
npm run test:unit
