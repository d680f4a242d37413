import { Suspense, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useCanWrite, useRunVersion, useVersion, type VersionFull } from '../../api/versions';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { ErrorMessage, Loading, When } from '../../components/status';
import { ConfigDiff, ConfigYaml } from './versions/lazy';
import './versions/versions.css';

/**
 * `/teams/:teamId/games/:gameId/versions/:versionId[?against=<namespace_id>]`: a version's config, its
 * diff against what a namespace runs now, and (members and above) running it in a namespace.
 */
export function VersionPage() {
  const { teamId, gameId, game } = useGameContext();
  const { versionId = '' } = useParams();
  const version = useVersion(gameId, versionId);
  const write = useCanWrite(teamId);
  const summary = game.versions.find((v) => v.version_id === versionId);
  useTitle(summary?.display_name ?? 'Version');

  if (version.isPending) return <Loading what="the version" />;
  if (version.isError)
    return (
      <>
        <h1>Version</h1>
        <ErrorMessage error={version.error} title="Could not load the version" />
      </>
    );
  const v = version.data.version;
  const runningIn = game.namespaces.filter((ns) => ns.version_id === v.version_id);
  const base = `/teams/${teamId}/games/${gameId}`;
  return (
    <>
      <p className="eyebrow">Version</p>
      <h1>{v.display_name}</h1>
      <dl className="facts">
        <dt>Version id</dt>
        <dd className="mono">{v.version_id}</dd>
        <dt>Created</dt>
        <dd>
          <When ts={v.create_ts} />
        </dd>
        <dt>Running in</dt>
        <dd>{runningIn.length === 0 ? 'No namespace' : runningIn.map((ns) => ns.display_name).join(', ')}</dd>
      </dl>
      {write.allowed ? (
        <p>
          <Link to={`${base}/versions/new?from=${v.version_id}`}>New version from this</Link>
        </p>
      ) : (
        !write.pending && (
          <p className="fine">
            Your role lets you look at versions; members and above make new ones and run them in namespaces.
          </p>
        )
      )}

      <div>
        <h2 id="version-config-heading">Configuration</h2>
        <Suspense fallback={<Loading what="the configuration" />}>
          <ConfigYaml config={v.config} labelledBy="version-config-heading" />
        </Suspense>
      </div>

      <DiffSection version={v} />
      {write.allowed && <RunSection version={v} />}
    </>
  );
}

/** The diff against the version a namespace runs now; the namespace is in the URL (`?against=`). */
function DiffSection({ version }: { version: VersionFull }) {
  const { gameId, game } = useGameContext();
  const [params, setParams] = useSearchParams();
  const againstId = params.get('against') ?? '';
  const namespace = game.namespaces.find((ns) => ns.namespace_id === againstId);
  const other = useVersion(gameId, namespace?.version_id);
  const otherName = game.versions.find((v) => v.version_id === namespace?.version_id)?.display_name;

  let body: React.ReactNode = null;
  if (againstId !== '' && namespace === undefined)
    body = <p className="notice error">This game has no such namespace.</p>;
  else if (namespace !== undefined && namespace.version_id === version.version_id)
    body = <p className="diff-summary">{namespace.display_name} runs this version: nothing differs.</p>;
  else if (namespace !== undefined && other.isPending) body = <Loading what="the namespace's version" />;
  else if (namespace !== undefined && other.isError)
    body = <ErrorMessage error={other.error} title="Could not load the namespace's version" />;
  else if (namespace !== undefined && other.data !== undefined)
    body = (
      <Suspense fallback={<Loading what="the diff" />}>
        <ConfigDiff
          before={other.data.version.config}
          after={version.config}
          beforeName={`${otherName ?? other.data.version.display_name} (running in ${namespace.display_name})`}
          afterName={`${version.display_name} (this version)`}
          labelledBy="version-diff-heading"
        />
      </Suspense>
    );
  return (
    <div>
      <h2 id="version-diff-heading">Diff against a namespace</h2>
      {game.namespaces.length === 0 ? (
        <p className="fine">The game has no namespaces yet.</p>
      ) : (
        <div className="stack">
          <label className="diff-pick">
            Namespace to compare with
            <select
              value={namespace === undefined ? '' : againstId}
              onChange={(event) => {
                const next = new URLSearchParams(params);
                if (event.target.value === '') next.delete('against');
                else next.set('against', event.target.value);
                setParams(next, { replace: true });
              }}
            >
              <option value="">Choose a namespace</option>
              {game.namespaces.map((ns) => (
                <option key={ns.namespace_id} value={ns.namespace_id}>
                  {ns.display_name} ({ns.name_id})
                </option>
              ))}
            </select>
          </label>
          {body}
        </div>
      )}
    </div>
  );
}

/** Points a namespace at this version (members and above). */
function RunSection({ version }: { version: VersionFull }) {
  const { gameId, game } = useGameContext();
  const run = useRunVersion(gameId);
  const [choice, setChoice] = useState('');
  const [done, setDone] = useState<string | undefined>(undefined);
  const others = game.namespaces.filter((ns) => ns.version_id !== version.version_id);
  const picked = others.find((ns) => ns.namespace_id === choice) ?? others[0];

  return (
    <section aria-labelledby="version-run-heading">
      <h2 id="version-run-heading">Run in a namespace</h2>
      {others.length === 0 ? (
        <p className="fine">
          {game.namespaces.length === 0
            ? 'The game has no namespaces yet.'
            : 'Every namespace of the game runs this version.'}
        </p>
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (picked === undefined) return;
            setDone(undefined);
            run.mutate(
              { namespaceId: picked.namespace_id, versionId: version.version_id },
              { onSuccess: () => setDone(`${picked.display_name} now runs ${version.display_name}.`) },
            );
          }}
        >
          <label>
            Namespace
            <select value={picked?.namespace_id ?? ''} onChange={(event) => setChoice(event.target.value)}>
              {others.map((ns) => (
                <option key={ns.namespace_id} value={ns.namespace_id}>
                  {ns.display_name} ({ns.name_id})
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={run.isPending}>
            {run.isPending ? 'Running…' : 'Run this version'}
          </button>
        </form>
      )}
      <p role="status" className="done">
        {done}
      </p>
      {run.isError && (
        <ErrorMessage error={run.error} title="Could not point the namespace at this version" />
      )}
    </section>
  );
}
