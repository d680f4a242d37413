/**
 * A table that may scroll sideways on a narrow screen: focusable, so a keyboard can scroll it, and named by
 * its section's heading for the screen reader that lands on it.
 */
export function TableWrap({ labelledBy, children }: { labelledBy: string; children: React.ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1)
    <section className="table-wrap" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  );
}
