import { type FormEvent, useState } from 'react';
import { type Environment, parseTagLines, useUploadBuild } from '../../../api/builds';
import { formatBytes } from '../../../api/uploads';
import { CopyButton } from '../../../components/CopyButton';
import { DropZone, UploadProgress } from '../../../components/DropZone';
import { ErrorMessage } from '../../../components/status';

/** Sends a build file to the namespace, with its name and tags, showing the upload's progress. */
export function UploadBuildForm({ env, namespaceName }: { env: Environment; namespaceName: string }) {
  const [file, setFile] = useState<File>();
  const [name, setName] = useState('');
  const [tagsText, setTagsText] = useState('');
  const [problem, setProblem] = useState<string>();
  const [sent, setSent] = useState(0);
  const [done, setDone] = useState<{ id: string; name: string; size: number }>();
  // Shown while bytes go out only: once the build is in, the result replaces the bar.
  const [progressOf, setProgressOf] = useState<{ name: string; total: number }>();
  const upload = useUploadBuild(env, setSent);
  const busy = upload.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file === undefined) {
      setProblem('Choose a file to upload first.');
      return;
    }
    const parsed = parseTagLines(tagsText);
    if ('problem' in parsed) {
      setProblem(`Tags: ${parsed.problem}.`);
      return;
    }
    setProblem(undefined);
    setDone(undefined);
    setSent(0);
    setProgressOf({ name: file.name, total: file.size });
    const buildName = name.trim() === '' ? file.name : name.trim();
    upload.mutate(
      { file, name: buildName, tags: parsed.tags },
      {
        onSuccess: (id) => {
          setDone({ id, name: buildName, size: file.size });
          setProgressOf(undefined);
          setFile(undefined);
          setName('');
          setTagsText('');
        },
      },
    );
  };

  return (
    <section aria-labelledby="upload-build" className="upload-build">
      <h2 id="upload-build">Upload a build</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <DropZone
          label="Choose a build file"
          hint={`Drop a server image here to upload it to ${namespaceName}, or`}
          file={file}
          disabled={busy}
          onFile={(chosen) => {
            setFile(chosen);
            setDone(undefined);
            setProgressOf(undefined);
            upload.reset();
          }}
        />
        <div className="upload-fields">
          <label>
            Name
            <input
              value={name}
              placeholder={file?.name ?? 'the file name'}
              disabled={busy}
              autoComplete="off"
              onChange={(event) => setName(event.target.value)}
            />
          </label>
          <label>
            Tags (optional)
            <span className="fine">One key=value a line.</span>
            <textarea
              rows={3}
              value={tagsText}
              disabled={busy}
              spellCheck={false}
              onChange={(event) => setTagsText(event.target.value)}
            />
          </label>
        </div>
        {problem !== undefined && (
          <p className="notice error" role="alert">
            {problem}
          </p>
        )}
        {busy && progressOf !== undefined && (
          <UploadProgress label={`Uploading ${progressOf.name}`} sent={sent} total={progressOf.total} />
        )}
        {upload.isError && <ErrorMessage error={upload.error} title="Could not upload the build" />}
        {done !== undefined && (
          <p className="notice success" role="status">
            Uploaded “{done.name}” ({formatBytes(done.size)}): <span className="mono">{done.id}</span>{' '}
            <CopyButton value={done.id} what="build id" />
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Uploading…' : 'Upload build'}
          </button>
        </div>
      </form>
    </section>
  );
}
