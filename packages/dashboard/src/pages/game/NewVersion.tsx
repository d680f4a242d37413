import { Suspense } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useCanWrite, useVersion } from '../../api/versions';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, ErrorMessage, Loading } from '../../components/status';
import { VersionForm } from './versions/lazy';
import './versions/versions.css';

/**
 * `/teams/:teamId/games/:gameId/versions/new[?from=<version_id>]`: a new version, its config written as
 * YAML and checked as it is typed; `from` starts it from another version's config (how a version is
 * "edited": versions never change once made).
 */
export function NewVersionPage() {
  const { teamId, gameId } = useGameContext();
  useTitle('New version');
  const [params] = useSearchParams();
  const from = params.get('from') ?? undefined;
  const source = useVersion(gameId, from);
  const write = useCanWrite(teamId);

  let body: React.ReactNode;
  if (write.pending) body = <Loading what="your role" />;
  else if (!write.allowed)
    body = (
      <Empty>
        <p>Members and above of the team create versions; your role here lets you look at them.</p>
      </Empty>
    );
  else if (from !== undefined && source.isPending) body = <Loading what="the version to start from" />;
  else if (from !== undefined && source.isError)
    body = <ErrorMessage error={source.error} title="Could not load the version to start from" />;
  else {
    const start = source.data?.version;
    body = (
      <Suspense fallback={<Loading what="the editor" />}>
        {/* A new starting point is a new form. */}
        <VersionForm key={start?.version_id ?? 'starter'} startConfig={start?.config} />
      </Suspense>
    );
  }
  const start = source.data?.version;
  return (
    <>
      <h1>New version</h1>
      <p className="lead">
        {start === undefined ? (
          'Versions never change once made: to change one, make a new version from it.'
        ) : (
          <>
            Starting from{' '}
            <Link to={`/teams/${teamId}/games/${gameId}/versions/${start.version_id}`}>
              {start.display_name}
            </Link>
            ; the new version is a copy until you change it.
          </>
        )}
      </p>
      {body}
    </>
  );
}
