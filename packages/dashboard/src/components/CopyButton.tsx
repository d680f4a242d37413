import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

/**
 * A small button that copies `value` (an id, a tag's value) to the clipboard, and says so for a moment.
 * Its name says what it copies, so a screen reader's list of buttons stays readable.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="copy"
      title={`Copy ${what}`}
      aria-label={copied ? `Copied ${what}` : `Copy ${what}`}
      onClick={() => {
        // A refused clipboard (an insecure origin, a denied permission) leaves the value selectable as text.
        void navigator.clipboard?.writeText(value).then(
          () => setCopied(true),
          () => undefined,
        );
      }}
    >
      {copied ? <Check aria-hidden size={14} /> : <Copy aria-hidden size={14} />}
    </button>
  );
}

/** An id in the monospace face, with its copy button. */
export function CopyId({ id, what }: { id: string; what: string }) {
  return (
    <span className="copy-id">
      <span className="mono">{id}</span>
      <CopyButton value={id} what={what} />
    </span>
  );
}
