import { roleCovers } from '@gcm/contract/roles';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  type Build,
  type Environment,
  parseTagLines,
  tagLines,
  useBuilds,
  usePatchBuildTags,
  useUploadBuild,
} from '../../api/builds';
import { useTeamRole } from '../../api/queries';
import { formatBytes } from '../../api/uploads';
import { CopyButton, CopyId } from '../../components/CopyButton';
import { DropZone, UploadProgress } from '../../components/DropZone';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../../components/status';
import { TableWrap } from '../../components/TableWrap';
import './builds.css';

/** `?tag=k=v` as its pair: the first `=` splits, so a value may hold more. */
function splitPair(text: string): [string, string] {
  const eq = text.indexOf('=');
  return eq < 0 ? [text, ''] : [text.slice(0, eq), text.slice(eq + 1)];
}

/**
 * `/teams/:teamId/games/:gameId/builds`: a namespace's completed builds, newest first. Everything a person
 * picks is in the address (`?namespace=`, `?tag=k=v` repeated, `?cursor=`, `?limit=`, `?edit=<build>`),
 * so a filtered page can be shared.
 */
export function BuildsPage() {
  useTitle('Builds');
  const { teamId, gameId, game } = useGameContext();
  const role = useTeamRole(teamId);
  const canWrite = roleCovers(role, 'member');
  const [params, setParams] = useSearchParams();

  const namespaces = game.namespaces;
  const namespaceId = params.get('namespace') ?? namespaces[0]?.namespace_id;
  const namespace = namespaces.find((ns) => ns.namespace_id === namespaceId);
  const env: Environment | undefined =
    namespaceId === undefined ? undefined : { gameId, environmentId: namespaceId };
  const filters = params.getAll('tag').map(splitPair);
  const cursor = params.get('cursor') ?? undefined;
  const builds = useBuilds(env, {
    tags: Object.fromEntries(filters),
    cursor,
    limit: params.get('limit') ?? undefined,
  });

  /** The current address with `change` applied, as a link target or for setParams. */
  const withParams = (change: (next: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    change(next);
    return next;
  };
  // A new namespace or filter starts again from the newest build.
  const restart = (next: URLSearchParams) => {
    next.delete('cursor');
    next.delete('edit');
  };

  if (namespaces.length === 0 || env === undefined) {
    return (
      <>
        <h1>Builds</h1>
        <Empty>
          <p>This game has no namespaces yet: builds are uploaded to a namespace.</p>
        </Empty>
      </>
    );
  }
  const namespaceName = namespace?.display_name ?? 'this namespace';

  return (
    <>
      <h1>Builds</h1>
      <p className="lead">
        Server images of {game.display_name}, per namespace. A version names one as the image of a game mode.
      </p>

      <div className="builds-controls">
        <label>
          Namespace
          <select
            value={namespaceId}
            onChange={(event) =>
              setParams(
                withParams((next) => {
                  next.set('namespace', event.target.value);
                  restart(next);
                }),
              )
            }
          >
            {namespace === undefined && (
              <option value={namespaceId}>Unknown namespace ({namespaceId})</option>
            )}
            {namespaces.map((ns) => (
              <option key={ns.namespace_id} value={ns.namespace_id}>
                {ns.display_name} ({ns.name_id})
              </option>
            ))}
          </select>
        </label>
        <TagFilterForm
          onAdd={(key, value) =>
            setParams(
              withParams((next) => {
                if (!next.getAll('tag').includes(`${key}=${value}`)) next.append('tag', `${key}=${value}`);
                restart(next);
              }),
            )
          }
        />
      </div>

      {filters.length > 0 && (
        <ul className="chips filter-chips" aria-label="Tag filters">
          {filters.map(([key, value]) => (
            <li key={`${key}=${value}`} className="chip">
              <span className="mono">
                {key}={value}
              </span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove filter ${key}=${value}`}
                onClick={() =>
                  setParams(
                    withParams((next) => {
                      const rest = next.getAll('tag').filter((t) => t !== `${key}=${value}`);
                      next.delete('tag');
                      for (const t of rest) next.append('tag', t);
                      restart(next);
                    }),
                  )
                }
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}

      {canWrite && <UploadBuildForm env={env} namespaceName={namespaceName} />}

      <section aria-labelledby="builds-list">
        <h2 id="builds-list">Builds in {namespaceName}</h2>
        {builds.isPending ? (
          <Loading what="builds" />
        ) : builds.isError ? (
          <ErrorMessage error={builds.error} title="Could not load the builds" />
        ) : builds.data.builds.length === 0 ? (
          <Empty>
            <p>
              {filters.length > 0
                ? 'No build of this namespace has every tag of the filter.'
                : cursor !== undefined
                  ? 'No older builds.'
                  : 'No builds in this namespace yet.'}
            </p>
          </Empty>
        ) : (
          <BuildsTable
            builds={builds.data.builds}
            env={env}
            canWrite={canWrite}
            editing={params.get('edit')}
            filterLink={(key, value) => ({
              search: withParams((next) => {
                next.append('tag', `${key}=${value}`);
                restart(next);
              }).toString(),
            })}
            onEdit={(buildId) => setParams(withParams((next) => void next.set('edit', buildId)))}
            closeEdit={() => setParams(withParams((next) => void next.delete('edit')))}
            filters={filters}
          />
        )}
        {!builds.isPending &&
          !builds.isError &&
          (cursor !== undefined || builds.data.cursor !== undefined) && (
            <nav aria-label="Pages of builds" className="pager">
              {cursor !== undefined && (
                <Link to={{ search: withParams((next) => void next.delete('cursor')).toString() }}>
                  ← Newest builds
                </Link>
              )}
              {builds.data.cursor !== undefined && (
                <Link
                  to={{
                    search: withParams((next) => {
                      next.set('cursor', builds.data.cursor ?? '');
                      next.delete('edit');
                    }).toString(),
                  }}
                >
                  Older builds →
                </Link>
              )}
            </nav>
          )}
      </section>
    </>
  );
}

function TagFilterForm({ onAdd }: { onAdd: (key: string, value: string) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = text.trim();
    const eq = trimmed.indexOf('=');
    if (eq <= 0) {
      setProblem('Write the filter as key=value, e.g. channel=beta.');
      return;
    }
    setProblem(undefined);
    onAdd(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
    setText('');
  };
  return (
    <form className="tag-filter" onSubmit={submit} noValidate>
      <label>
        Filter by tag
        <input
          value={text}
          placeholder="key=value"
          autoComplete="off"
          aria-invalid={problem !== undefined}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit" className="secondary">
        Add filter
      </button>
      {problem !== undefined && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

function BuildsTable({
  builds,
  env,
  canWrite,
  editing,
  filterLink,
  onEdit,
  closeEdit,
  filters,
}: {
  builds: Build[];
  env: Environment;
  canWrite: boolean;
  editing: string | null;
  filterLink: (key: string, value: string) => { search: string };
  onEdit: (buildId: string) => void;
  closeEdit: () => void;
  filters: [string, string][];
}) {
  const columns = canWrite ? 7 : 6;
  const filtered = new Set(filters.map(([k, v]) => `${k}=${v}`));
  return (
    <TableWrap labelledBy="builds-list">
      <table className="builds-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Build id</th>
            <th scope="col">Size</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">Tags</th>
            {canWrite && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {builds.map((build) => (
            <BuildRow
              key={build.id}
              build={build}
              env={env}
              canWrite={canWrite}
              isEditing={editing === build.id}
              columns={columns}
              filtered={filtered}
              filterLink={filterLink}
              onEdit={() => onEdit(build.id)}
              closeEdit={closeEdit}
            />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function BuildRow({
  build,
  env,
  canWrite,
  isEditing,
  columns,
  filtered,
  filterLink,
  onEdit,
  closeEdit,
}: {
  build: Build;
  env: Environment;
  canWrite: boolean;
  isEditing: boolean;
  columns: number;
  filtered: Set<string>;
  filterLink: (key: string, value: string) => { search: string };
  onEdit: () => void;
  closeEdit: () => void;
}) {
  const tags = Object.entries(build.tags);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(isEditing);
  // When the editor closes (saved or cancelled), the keyboard goes back to the button that opened it.
  useEffect(() => {
    if (wasEditing.current && !isEditing) editButton.current?.focus();
    wasEditing.current = isEditing;
  }, [isEditing]);
  return (
    <>
      <tr>
        <th scope="row" className="build-name">
          {build.name}
        </th>
        <td className="mono" data-label="Build id">
          <CopyId id={build.id} what={`id of ${build.name}`} />
        </td>
        <td className="nowrap" data-label="Size">
          <span title={`${build.content_length} bytes`}>{formatBytes(build.content_length)}</span>
        </td>
        <td data-label="Created">
          <When ts={build.created_at} />
        </td>
        <td data-label="State">
          <span className="state">Complete</span>
        </td>
        <td data-label="Tags">
          {tags.length === 0 ? (
            <span className="fine">none</span>
          ) : (
            <ul className="chips" aria-label={`Tags of ${build.name}`}>
              {tags.map(([key, value]) => (
                <li key={key} className="chip">
                  {filtered.has(`${key}=${value}`) ? (
                    <span className="mono tag-text" title={`${key}=${value}`}>
                      {key}={value}
                    </span>
                  ) : (
                    <Link
                      className="mono tag-text"
                      to={filterLink(key, value)}
                      title={`${key}=${value}: show only builds tagged so`}
                    >
                      {key}={value}
                    </Link>
                  )}
                  <CopyButton value={value} what={`value of tag ${key}`} />
                </li>
              ))}
            </ul>
          )}
        </td>
        {canWrite && (
          <td className="row-actions">
            <button
              ref={editButton}
              type="button"
              className="secondary nowrap"
              aria-expanded={isEditing}
              aria-label={`Edit tags of ${build.name}`}
              onClick={isEditing ? closeEdit : onEdit}
            >
              Edit tags
            </button>
          </td>
        )}
      </tr>
      {canWrite && isEditing && (
        <tr className="edit-row">
          <td colSpan={columns}>
            <TagEditor build={build} env={env} onDone={closeEdit} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The service merges tags (a key left out keeps its value) and takes each exclusive key off every other
 * build of the namespace, so that key names this build alone.
 */
function TagEditor({ build, env, onDone }: { build: Build; env: Environment; onDone: () => void }) {
  const [text, setText] = useState(() => tagLines(build.tags));
  const [exclusive, setExclusive] = useState<ReadonlySet<string>>(new Set());
  const [problem, setProblem] = useState<string>();
  const patch = usePatchBuildTags(env);
  const parsed = parseTagLines(text);
  const keys = 'tags' in parsed ? Object.keys(parsed.tags) : [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if ('problem' in parsed) {
      setProblem(`Tags: ${parsed.problem}.`);
      return;
    }
    setProblem(undefined);
    const chosen = [...exclusive].filter((k) => keys.includes(k));
    patch.mutate(
      {
        buildId: build.id,
        body: { tags: parsed.tags, ...(chosen.length > 0 ? { exclusive_tags: chosen } : {}) },
      },
      { onSuccess: onDone },
    );
  };

  return (
    <form className="tag-editor stack" onSubmit={submit} aria-label={`Tags of ${build.name}`}>
      <label>
        Tags of {build.name}
        <span className="fine">One key=value a line. Tags are merged: a tag left out keeps its value.</span>
        <textarea
          rows={Math.min(Math.max(keys.length + 1, 3), 10)}
          value={text}
          spellCheck={false}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      {keys.length > 0 && (
        <fieldset>
          <legend>Exclusive tags</legend>
          <p className="fine">An exclusive tag is taken off every other build of this namespace.</p>
          <div className="checks">
            {keys.map((key) => (
              <label key={key} className="check">
                <input
                  type="checkbox"
                  checked={exclusive.has(key)}
                  onChange={(event) => {
                    const next = new Set(exclusive);
                    if (event.target.checked) next.add(key);
                    else next.delete(key);
                    setExclusive(next);
                  }}
                />
                <span>
                  <span className="visually-hidden">Exclusive: </span>
                  <span className="mono">{key}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {problem !== undefined && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      {patch.isError && <ErrorMessage error={patch.error} title="Could not save the tags" />}
      <div className="actions">
        <button type="submit" disabled={patch.isPending}>
          {patch.isPending ? 'Saving…' : 'Save tags'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function UploadBuildForm({ env, namespaceName }: { env: Environment; namespaceName: string }) {
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
