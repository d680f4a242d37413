import { useId, useState } from 'react';
import { formatBytes } from '../api/uploads';
import './drop-zone.css';

/**
 * A file picker that also takes a dropped file. The drop area is for the mouse; the real file input (its
 * label styled as a button) is what a keyboard or screen reader uses, so both choose a file the same way.
 */
export function DropZone({
  label,
  hint,
  accept,
  file,
  onFile,
  disabled = false,
}: {
  /** The button's text and the input's accessible name, e.g. "Choose a build file". */
  label: string;
  hint: string;
  accept?: string;
  file: File | undefined;
  onFile: (file: File) => void;
  disabled?: boolean;
}) {
  const [over, setOver] = useState(false);
  const hintId = useId();
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the labelled input inside is the accessible way to choose
    <div
      className={`drop-zone${over ? ' over' : ''}${disabled ? ' disabled' : ''}`}
      onDragOver={(event) => {
        if (disabled) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const dropped = event.dataTransfer.files[0];
        if (!disabled && dropped !== undefined) onFile(dropped);
      }}
    >
      <p id={hintId} className="drop-hint">
        {hint}
      </p>
      <label className="file-button">
        {label}
        <input
          type="file"
          className="visually-hidden"
          accept={accept}
          disabled={disabled}
          aria-describedby={hintId}
          onChange={(event) => {
            const chosen = event.target.files?.[0];
            if (chosen !== undefined) onFile(chosen);
            // The same file chosen again after an error still fires a change.
            event.target.value = '';
          }}
        />
      </label>
      {file !== undefined && (
        <p className="drop-chosen">
          Chosen: <span className="mono">{file.name}</span> ({formatBytes(file.size)})
        </p>
      )}
    </div>
  );
}

/** Bytes sent of a file as a bar, with the same in words for those who cannot see the bar. */
export function UploadProgress({ label, sent, total }: { label: string; sent: number; total: number }) {
  const id = useId();
  const percent = total === 0 ? 100 : Math.floor((sent / total) * 100);
  const words = `${formatBytes(sent)} of ${formatBytes(total)} (${percent}%)`;
  return (
    <div className="upload-progress">
      <label htmlFor={id}>{label}</label>
      <progress id={id} max={Math.max(total, 1)} value={total === 0 ? 1 : sent} aria-valuetext={words}>
        {percent}%
      </progress>
      <p className="fine">{words}</p>
    </div>
  );
}
