/**
 * Records every error that escapes as an unhandled rejection or an uncaught exception while it is set.
 * node:test turns such an error into a failure of whichever test happens to be running (or of none, when
 * it comes late), so a test that must prove nothing escapes records them itself and asserts none came.
 */
export function trapEscapes(): { escaped: { event: string; err: unknown }[]; release(): void } {
  const escaped: { event: string; err: unknown }[] = [];
  const onRejection = (err: unknown) => escaped.push({ event: 'unhandledRejection', err });
  const onException = (err: unknown) => escaped.push({ event: 'uncaughtException', err });
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    escaped,
    release() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/** The escapes as text for an assertion message. */
export function describeEscapes(escaped: { event: string; err: unknown }[]): string {
  return escaped
    .map(({ event, err }) => `${event}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    .join('\n');
}
