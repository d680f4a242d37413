#!/usr/bin/env bash
# The suite's files in the order `npm test` starts them. Files run a few at a time (GCM_TEST_CONCURRENCY);
# a long file started last would hold the whole run up alone at its end, with the other slots idle, so the
# longest start first. The browser files spend half their time waiting (on Chromium, on the pages' polls):
# run side by side they left a core idle, so they are spread evenly through the rest, longest first, each
# beside files that compute. A name here that no longer exists is skipped; a new file needs no entry (a new
# browser file joins the spread at its end).
set -euo pipefail
cd "$(dirname "$0")/.."
slow=(
  test/process/fresh-clone.test.ts
  test/cli/cli.test.ts
  test/http/authorization-matrix.test.ts
  test/modules/runtime.test.ts
)
browser=(
  test/browser/dashboard-people.test.ts
  test/browser/dashboard-runtime-lobbies.test.ts
  test/browser/dashboard-builds.test.ts
  test/browser/dashboard-live.test.ts
  test/browser/dashboard.test.ts
  test/browser/dashboard-start.test.ts
  test/browser/dashboard-versions.test.ts
  test/browser/dashboard-first-hour.test.ts
  test/browser/device-link-page.test.ts
  test/browser/dashboard-journey.test.ts
  test/browser/first-run-setup.test.ts
  test/browser/docs-page.test.ts
)
# The PostgreSQL pass (GCM_TEST_DATABASE_URL set) leaves out what reaches the store only through the service's
# HTTP API, or not at all: the dashboard in Chromium, the CLI, the SDK, the runtime driver against its engine,
# the ground-floor libraries and the checks of docs and of the OpenAPI document. What they call is the same
# code on either store, and the API tests run it on both; starting them again cost a third of the pass.
store_agnostic='^test/(browser|cli|sdk|runtime|lib)/|^test/(docs-[a-z-]+|errors-catalogue)\.test\.ts$|^test/http/openapi-lint\.test\.ts$'
keep() {
  if [[ -n ${GCM_TEST_DATABASE_URL:-} ]]; then grep -Ev "$store_agnostic" || true; else cat; fi
}
all=$(find test -name '*.test.ts' | sort)
present() { for f in "$@"; do grep -qxF "$f" <<<"$all" && echo "$f"; done; }
mapfile -t first < <(present "${slow[@]}")
mapfile -t pages < <(present "${browser[@]}"; grep '^test/browser/' <<<"$all" | grep -vxF -f <(printf '%s\n' "${browser[@]}") || true)
mapfile -t rest < <(grep -vxF -f <(printf '%s\n' "${slow[@]}") <<<"$all" | grep -v '^test/browser/' || true)
{
  printf '%s\n' "${first[@]}"
  # One browser file, then as many of the rest as spread the browser files over the whole list.
  step=$(((${#rest[@]} + ${#pages[@]} - 1) / (${#pages[@]} > 0 ? ${#pages[@]} : 1)))
  r=0
  for page in "${pages[@]}"; do
    echo "$page"
    for ((i = 0; i < step && r < ${#rest[@]}; i++)); do echo "${rest[r]}"; r=$((r + 1)); done
  done
  while ((r < ${#rest[@]})); do echo "${rest[r]}"; r=$((r + 1)); done
} | keep
