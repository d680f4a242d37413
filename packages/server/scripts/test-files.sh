#!/usr/bin/env bash
# The suite's files in the order `npm test` starts them: the longest first, then the rest by name. Files run
# a few at a time (GCM_TEST_CONCURRENCY); a long file started last would hold the whole run up alone at its
# end, with the other slots idle. A name here that no longer exists is skipped; a new file needs no entry.
# The browser files are not moved up: their suites have fixed time limits, and beside the install and the
# fuzz shares at the start they were starved past them.
set -euo pipefail
cd "$(dirname "$0")/.."
slow=(
  test/process/fresh-clone.test.ts
  test/http/fuzz.3.test.ts
  test/http/authorization-matrix.test.ts
  test/http/fuzz.2.test.ts
  test/modules/account-protection.test.ts
  test/http/fuzz.1.test.ts
)
for f in "${slow[@]}"; do [[ -f $f ]] && echo "$f"; done
find test -name '*.test.ts' | sort | grep -vxF -f <(printf '%s\n' "${slow[@]}")
