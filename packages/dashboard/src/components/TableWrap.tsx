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

/**
 * A list page's table in its TableWrap: a header cell a column, and with `actions` a last column whose name
 * only screen readers hear (its cells hold buttons). The rows are the children, so each page keeps its own.
 * With `caption`, the table names itself (hidden) under the `labelledBy` id instead of a heading outside.
 */
export function Table({
  labelledBy,
  className,
  columns,
  actions = false,
  caption,
  children,
}: {
  labelledBy: string;
  className: string;
  columns: readonly string[];
  actions?: boolean;
  caption?: string;
  children: React.ReactNode;
}) {
  return (
    <TableWrap labelledBy={labelledBy}>
      <table className={className}>
        {caption !== undefined && (
          <caption className="visually-hidden" id={labelledBy}>
            {caption}
          </caption>
        )}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}
