import { useEffect, useRef, useState } from 'react';
import './confirm.css';

/**
 * An action that cannot be taken back (stop a lobby, revoke a token), behind a confirm step: a first
 * button, then the question with the button that acts and one that keeps things as they are. Nothing is
 * asked of the service until the second click.
 */
export function ConfirmStep(props: {
  /** Shown beside the first button (a token's "Active"). */
  lead?: React.ReactNode;
  /** The first button's text, and its accessible name, which says what it acts on ("Stop lobby 0192…"). */
  action: string;
  actionLabel: string;
  question: string;
  /** The confirm button's text, and its text while the action is under way. */
  confirm: string;
  confirming: string;
  pending: boolean;
  onConfirm: () => void;
}) {
  const [open, setOpen] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The first button is gone once the question shows: keyboard focus moves to its confirm button.
  useEffect(() => {
    if (open) confirmRef.current?.focus();
  }, [open]);

  if (!open)
    return (
      <div className="confirm-step">
        {props.lead}
        <button
          type="button"
          className="secondary"
          aria-label={props.actionLabel}
          onClick={() => setOpen(true)}
        >
          {props.action}
        </button>
      </div>
    );
  return (
    <div className="confirm-step">
      <span>{props.question}</span>
      <button
        ref={confirmRef}
        type="button"
        className="confirm-danger"
        disabled={props.pending}
        onClick={props.onConfirm}
      >
        {props.pending ? props.confirming : props.confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setOpen(false)}>
        Keep it
      </button>
    </div>
  );
}
