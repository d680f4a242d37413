/**
 * The modules whose mutation score the README records (issue 19): the code that keeps one tenant from
 * another and guards money, each with the test files that should catch a change to it. Line ranges keep a
 * module to its rules where a file holds more. `lastFiles` (of `testFiles`) run only against what the others
 * left alive.
 */
export const MUTATION_MODULES = [
  {
    name: 'billing-rules',
    mutate: ['packages/server/src/modules/billing/billing.rules.ts'],
    testFiles: ['packages/server/test/modules/billing.test.ts'],
  },
  {
    name: 'validator-network',
    // The verification URL's network rules: checkVerificationUrl, isInternalHost, isInternalIpv4/6.
    mutate: ['packages/contract/src/version-config/validate.ts:685-737'],
    testFiles: [
      'packages/server/test/modules/version-validate.test.ts',
      'packages/server/test/modules/version-validate.property.test.ts',
    ],
  },
  {
    name: 'device-links',
    mutate: [
      'packages/server/src/modules/device-links/device-links.repository.ts',
      'packages/server/src/modules/device-links/device-links.service.ts',
    ],
    testFiles: [
      'packages/server/test/modules/device-links.test.ts',
      'packages/server/test/modules/tenant-isolation.test.ts',
      'packages/server/test/http/rate-limits.test.ts',
    ],
  },
  {
    name: 'upload-signing',
    // The embedded store's URL signing and checking.
    mutate: [
      'packages/server/src/lib/blob/embedded-blob-storage.ts:82-99',
      'packages/server/src/lib/blob/embedded-blob-storage.ts:260-264',
    ],
    testFiles: [
      'packages/server/test/lib/blob-storage.test.ts',
      'packages/server/test/modules/uploads.test.ts',
    ],
  },
  {
    name: 'upload-completion',
    // Prepare, presign, complete, the avatar checks and the embedded store's PUT (the file's clean-up
    // functions after receiveUploadPart are retention's, not the completion rules).
    mutate: ['packages/server/src/modules/uploads/uploads.service.ts:55-368'],
    testFiles: [
      'packages/server/test/modules/uploads.test.ts',
      'packages/server/test/modules/s3-storage.test.ts',
      'packages/server/test/modules/builds.test.ts',
      'packages/server/test/modules/retention.test.ts',
      'packages/server/test/http/idempotency.test.ts',
      'packages/server/test/modules/tenant-isolation.test.ts',
    ],
  },
  {
    name: 'tokens',
    mutate: [
      'packages/server/src/modules/tokens/tokens.service.ts',
      'packages/server/src/modules/tokens/tokens.repository.ts',
      'packages/server/src/identity/token-authority.ts',
      'packages/server/src/identity/token-store.ts',
    ],
    testFiles: [
      'packages/server/test/modules/tokens.test.ts',
      'packages/server/test/modules/lists.test.ts',
      'packages/server/test/modules/tenant-isolation.test.ts',
      'packages/server/test/modules/lobby-logs.test.ts',
      // Device link tokens are signed and checked here too.
      'packages/server/test/modules/device-links.test.ts',
      // A request whose address has failed checks goes past the in-memory path to authenticate().
      'packages/server/test/http/rate-limits.test.ts',
      'packages/server/test/http/auth-rules.test.ts',
      'packages/server/test/modules/accounts.test.ts',
    ],
  },
  {
    name: 'builds-tags',
    // Builds' reads and tag writes; the purge's helpers at the file's end are retention's.
    mutate: ['packages/server/src/modules/builds/builds.repository.ts:1-207'],
    testFiles: [
      'packages/server/test/modules/builds.test.ts',
      'packages/server/test/modules/lists.test.ts',
      'packages/server/test/modules/tenant-isolation.test.ts',
    ],
  },
  {
    name: 'http-auth',
    mutate: ['packages/server/src/http/auth.ts'],
    testFiles: [
      // A mutant stops at the first file that fails: auth-rules states each rule's refusals in a few
      // seconds, so most end there.
      'packages/server/test/http/auth-rules.test.ts',
      'packages/server/test/modules/tokens.test.ts',
      'packages/server/test/http/rate-limits.test.ts',
      'packages/server/test/http/openapi.test.ts',
      'packages/server/test/modules/accounts.test.ts',
      'packages/server/test/http/authorization-matrix.test.ts',
    ],
    // A minute a run: only against the mutants the other files leave alive (scripts/mutate.mjs).
    lastFiles: ['packages/server/test/http/authorization-matrix.test.ts'],
  },
  {
    name: 'placement-shares',
    // What keeps one tenant's players from crowding out another's: the host shares' arithmetic, placement's
    // caps (lobby_count_max, the host, its shares), find's tags rule and the players-per-client caps.
    mutate: [
      'packages/server/src/modules/runtime/placement-shares.ts',
      'packages/server/src/modules/runtime/runtime.service.ts:357-378',
      'packages/server/src/modules/runtime/runtime.service.ts:405-415',
      'packages/server/src/modules/matchmaker/matchmaker-players.service.ts:71-72',
      'packages/server/src/modules/matchmaker/matchmaker-players.service.ts:266-276',
      'packages/server/src/modules/matchmaker/matchmaker-players.service.ts:430-437',
    ],
    testFiles: [
      // Pure arithmetic, no store nor engine: most mutants of the shares end here in milliseconds.
      'packages/server/test/modules/placement-shares.test.ts',
      'packages/server/test/modules/matchmaker-find.test.ts',
      'packages/server/test/modules/matchmaker-address-classes.test.ts',
      'packages/server/test/modules/matchmaker-auto-create.test.ts',
    ],
    // A real engine, a minute and more a run: only against what the others leave alive.
    lastFiles: ['packages/server/test/modules/matchmaker-auto-create.test.ts'],
  },
  {
    name: 'lobby-player-tokens',
    // The lobby token (its shape and its check), the player token's check, the lobby's player calls, and the
    // failed-token guard that must never refuse a valid one for its address: what keeps one tenant's lobby
    // from acting on, or locking out, another's.
    mutate: [
      'packages/server/src/identity/lobby-tokens.ts',
      'packages/server/src/identity/token-authority.ts:209-231',
      'packages/server/src/identity/token-authority.ts:327-353',
      'packages/server/src/http/rate-limits.ts:59-191',
      'packages/server/src/modules/matchmaker/matchmaker.service.ts:30-103',
    ],
    testFiles: [
      // Seconds, no engine: the guard and the token shapes on their own.
      'packages/server/test/http/auth-failure-guard.test.ts',
      'packages/server/test/http/shared-address-limits.test.ts',
      'packages/server/test/modules/matchmaker-lobby-calls.test.ts',
    ],
  },
  {
    name: 'lobby-bounds',
    // The per-lobby token buckets: a lobby's captured output and its state writes.
    mutate: ['packages/server/src/lib/token-bucket.ts'],
    testFiles: ['packages/server/test/lib/token-bucket.test.ts'],
  },
  {
    name: 'archive-checks',
    // What a build archive is read as before the engine has it whole: the image id, the names, the bound.
    // Pure tests, no engine: docker-driver.test.ts holds the engine's side.
    mutate: ['packages/server/src/runtime/docker/image-archive.ts'],
    testFiles: ['packages/server/test/runtime/image-archive.test.ts'],
  },
];
