/**
 * Points where a test may hold a request, to force an interleaving of two requests that real traffic makes
 * only now and then (a connection queue or a fast machine may never make it). Each is awaited where it is
 * set; production sets none.
 */
export interface TestPauses {
  /** A device-link completion has read its link as not completed yet and has written nothing. */
  deviceLinkCompletionRead?: () => Promise<void>;
  /** An upload completion has read its upload as pending and has not frozen its file yet. */
  uploadCompletionRead?: () => Promise<void>;
  /** An upload completion has frozen (or joined) its file and has recorded nothing yet. */
  uploadCompletionFrozen?: () => Promise<void>;
}

/**
 * The key a test's pauses ride under on the service's deps (createService's `pauses`). A symbol, not a
 * field of Deps: the production types carry no test seam, and object spreads of deps keep it along.
 */
const PAUSES = Symbol('gcm.testPauses');

/** Sets a test's pauses on `deps`: only createService does, and only when a test passes some. */
export function holdTestPauses(deps: object, pauses: TestPauses): void {
  Object.defineProperty(deps, PAUSES, { value: pauses, enumerable: true });
}

/** Waits at `point` when a test set a pause there; at once otherwise (always, in production). */
export async function testPause(deps: object, point: keyof TestPauses): Promise<void> {
  // Only holdTestPauses writes PAUSES, always with a TestPauses.
  const pauses = (deps as { [PAUSES]?: TestPauses })[PAUSES];
  // Stryker disable next-line OptionalChaining: a test seam, unset in production.
  await pauses?.[point]?.();
}
