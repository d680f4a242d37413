import { Link, type To } from 'react-router';

/** A link of the pager: where it goes and what it says. */
export interface PageLink {
  to: To;
  text: string;
}

/**
 * The links under a list paged by the service's cursor: back to the newest page (when on an older one) and
 * on to the next older page (when there is one). `children` follow the links (a loading note, say).
 */
export function Pager({
  label,
  className = 'pager',
  newest,
  older,
  children,
}: {
  label: string;
  className?: string;
  newest: PageLink | undefined;
  older: PageLink | undefined;
  children?: React.ReactNode;
}) {
  return (
    <nav aria-label={label} className={className}>
      {newest !== undefined && <Link to={newest.to}>{newest.text}</Link>}
      {older !== undefined && <Link to={older.to}>{older.text}</Link>}
      {children}
    </nav>
  );
}
