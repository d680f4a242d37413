#!/usr/bin/env bash
# The suite's files in the order `npm test` starts them: the longest first, then the rest by name. Files run
# a few at a time (GCM_TEST_CONCURRENCY); a long file started last would hold the whole run up alone at its
# end, with the other slots idle. A name here that no longer exists is skipped; a new file needs no entry.
# (Spreading the browser files through the rest was tried and made the SQLite pass slower: 1,012 → 1,052 s.)
set -euo pipefail
cd "$(dirname "$0")/.."
slow=(
  test/process/fresh-clone.test.ts
  test/cli/cli.test.ts
  test/http/authorization-matrix.test.ts
  test/modules/runtime.test.ts
  test/modules/team-owners.test.ts
)
# The PostgreSQL pass (GCM_TEST_DATABASE_URL set) leaves out what reaches the store only through the service's
# HTTP API, or not at all: the dashboard in Chromium, the CLI, the SDK, the runtime driver against its engine,
# the ground-floor libraries and the checks of docs and of the OpenAPI document. What they call is the same
# code on either store, and the API tests run it on both; starting them again cost a third of the pass.
store_agnostic='^test/(browser|cli|sdk|runtime|lib)/|^test/(docs-[a-z-]+|errors-catalogue)\.test\.ts$|^test/http/openapi-lint\.test\.ts$'
keep() {
  if [[ -n ${GCM_TEST_DATABASE_URL:-} ]]; then grep -Ev "$store_agnostic" || true; else cat; fi
}
{
  for f in "${slow[@]}"; do [[ -f $f ]] && echo "$f"; done
  find test -name '*.test.ts' | sort | grep -vxF -f <(printf '%s\n' "${slow[@]}")
} | keep
