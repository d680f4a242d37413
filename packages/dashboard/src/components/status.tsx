import { ApiError } from '../api/client';

/** A polite live region, so a screen reader hears that something is on its way. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="status" role="status">
      Loading {what}…
    </p>
  );
}

/** The service's own message (and ray id, for a report) or, for anything else, what went wrong. */
export function ErrorMessage({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="notice error" role="alert">
      <strong>{title}</strong>
      <p>{message}</p>
      {error instanceof ApiError && error.rayId !== undefined && (
        <p className="fine">
          {error.code} · ray id <code>{error.rayId}</code>
        </p>
      )}
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** Dates as the person's locale writes them; the title keeps the exact UTC instant. */
export function When({ ts }: { ts: string }) {
  const date = new Date(ts);
  return (
    <time dateTime={ts} title={ts}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}
