import { Frame } from './Layout';
import { ErrorMessage } from './status';

/**
 * The pages a person sees before they are in (sign in, sign up, forgot and reset password, first-run setup):
 * one narrow card under the service's bar, headed by the page's title.
 */
export function NarrowPage({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Frame>
      <div className="narrow">
        <h1>{title}</h1>
        {children}
      </div>
    </Frame>
  );
}

/**
 * The one form of the sign-in, sign-up and password pages: its fields, a submit button that says it is busy
 * while the request runs, and under the form the service's refusal in its own words.
 */
export function AuthForm({
  onSubmit,
  request,
  words,
  noValidate,
  children,
}: {
  onSubmit: () => void;
  /** The request the form makes (a mutation). */
  request: { isPending: boolean; isError: boolean; error: unknown };
  /** The button's label, its label while busy, and the title of a refusal. */
  words: { submit: string; busy: string; failed: string };
  /** When the page checks the fields itself and says what is wrong in its own words. */
  noValidate?: boolean;
  children: React.ReactNode;
}) {
  return (
    <>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
        className="stack"
        noValidate={noValidate}
      >
        {children}
        <button type="submit" disabled={request.isPending}>
          {request.isPending ? words.busy : words.submit}
        </button>
      </form>
      {request.isError && <ErrorMessage error={request.error} title={words.failed} />}
    </>
  );
}

/** An account's email, as sign-in and the forgotten-password page ask for it. */
export function EmailField({
  value,
  onChange,
  maxLength,
}: {
  value: string;
  onChange: (value: string) => void;
  maxLength?: number;
}) {
  return (
    <label>
      Email
      <input
        type="email"
        autoComplete="username"
        required
        maxLength={maxLength}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}
