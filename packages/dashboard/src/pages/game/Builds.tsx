import { roleCovers } from '@gcm/contract/roles';
import { useSearchParams } from 'react-router';
import { type Environment, useBuilds } from '../../api/builds';
import { useTeamRole } from '../../api/queries';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Pager } from '../../components/Pager';
import { Empty, ErrorMessage, Loading } from '../../components/status';
import { BuildsTable } from './builds/BuildsTable';
import { TagFilterForm } from './builds/TagFilterForm';
import { UploadBuildForm } from './builds/UploadBuildForm';
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
            <Pager
              label="Pages of builds"
              newest={
                cursor === undefined
                  ? undefined
                  : {
                      to: { search: withParams((next) => void next.delete('cursor')).toString() },
                      text: '← Newest builds',
                    }
              }
              older={
                builds.data.cursor === undefined
                  ? undefined
                  : {
                      to: {
                        search: withParams((next) => {
                          next.set('cursor', builds.data.cursor ?? '');
                          next.delete('edit');
                        }).toString(),
                      },
                      text: 'Older builds →',
                    }
              }
            />
          )}
      </section>
    </>
  );
}
