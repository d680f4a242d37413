import { roleCovers } from '@gcm/contract/roles';
import { Activity, Boxes, Check, Circle, FileCode2, KeyRound, Layers, Package, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { type Figure, useHasToken, useOverviewFigures } from '../../api/overview';
import { useTeamRole } from '../../api/queries';
import { useCanWrite } from '../../api/versions';
import { CopyId } from '../../components/CopyButton';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, When } from '../../components/status';
import { TableWrap } from '../../components/TableWrap';
import { Rollouts } from './Rollouts';
import { NewNamespaceForm } from './versions/NewNamespaceForm';

/** A figure as read: "…" while loading, "100+" when pages were not all counted. */
function figureText(figure: Figure): string {
  if (figure.pending) return '…';
  return `${figure.count}${figure.more ? '+' : ''}`;
}

/** `/teams/:teamId/games/:gameId`: a game's figures, its first steps, its namespaces and versions. */
export function GameOverviewPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(game.display_name);
  const write = useCanWrite(teamId);
  const role = useTeamRole(teamId);
  const admin = roleCovers(role, 'admin');
  const base = `/teams/${teamId}/games/${gameId}`;

  const { display_name, name_id, namespaces, versions, create_ts } = game;
  const figures = useOverviewFigures(
    gameId,
    namespaces.map((ns) => ns.namespace_id),
  );
  const hasToken = useHasToken(gameId, admin);
  const versionName = new Map(versions.map((v) => [v.version_id, v.display_name]));

  // Builds live in a namespace, and a namespace runs a version: so the first steps go in this order.
  const steps: Step[] = [
    {
      title: 'Create a version',
      how: 'The config your servers run: game modes, ports, regions. An empty one is fine to start.',
      to: `${base}/versions/new`,
      done: versions.length > 0,
      icon: <FileCode2 aria-hidden size={18} />,
    },
    {
      title: 'Create a namespace',
      how: 'An environment, such as Staging or Production, running one version.',
      to: `${base}#new-namespace-heading`,
      done: namespaces.length > 0,
      icon: <Layers aria-hidden size={18} />,
    },
    {
      title: 'Upload a build',
      how: 'Your server image, to a namespace; a version then names it by id.',
      to: `${base}/builds`,
      done: !figures.builds.pending && figures.builds.count > 0,
      icon: <Package aria-hidden size={18} />,
    },
    {
      title: 'Mint a token',
      how: admin
        ? 'A cloud token lets the CLI or your CI deploy to this game.'
        : 'A cloud token lets the CLI or your CI deploy; an admin or owner of the team mints it.',
      to: `${base}/tokens`,
      done: hasToken.data === true,
      icon: <KeyRound aria-hidden size={18} />,
    },
  ];
  const allDone = steps.every((s) => s.done);
  const stillLoading = figures.builds.pending || (admin && hasToken.isPending);

  return (
    <>
      <h1>{display_name}</h1>
      <p className="lead">
        <span className="mono">{name_id}</span> · created <When ts={create_ts} />
      </p>

      <ul className="figures" aria-label="At a glance">
        <li>
          <a className="figure" href="#namespaces">
            <Layers aria-hidden size={28} />
            <span>
              <span className="figure-value">{namespaces.length}</span>
              <span className="figure-label">{namespaces.length === 1 ? 'namespace' : 'namespaces'}</span>
            </span>
          </a>
        </li>
        <li>
          <Link className="figure" to={`${base}/builds`}>
            <Boxes aria-hidden size={28} />
            <span>
              <span className="figure-value">{figureText(figures.builds)}</span>
              <span className="figure-label">builds</span>
            </span>
          </Link>
        </li>
        <li>
          <Link className="figure" to={`${base}/lobbies`}>
            <Activity aria-hidden size={28} />
            <span>
              <span className="figure-value">{figureText(figures.lobbies)}</span>
              <span className="figure-label">live lobbies</span>
            </span>
          </Link>
        </li>
      </ul>

      {!allDone && !stillLoading && <FirstSteps steps={steps} />}

      <section aria-labelledby="namespaces">
        <h2 id="namespaces">Namespaces</h2>
        {namespaces.length === 0 ? (
          <Empty>
            <p>No namespaces yet.</p>
          </Empty>
        ) : (
          <TableWrap labelledBy="namespaces">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Name id</th>
                  <th scope="col">Namespace id</th>
                  <th scope="col">Running version</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {namespaces.map((ns) => (
                  <tr key={ns.namespace_id}>
                    <th scope="row">{ns.display_name}</th>
                    <td className="mono" data-label="Name id">
                      {ns.name_id}
                    </td>
                    <td data-label="Namespace id">
                      <CopyId id={ns.namespace_id} what={`id of namespace ${ns.display_name}`} />
                    </td>
                    <td data-label="Running version">
                      <Link to={`${base}/versions/${ns.version_id}`}>
                        {versionName.get(ns.version_id) ?? <span className="mono">{ns.version_id}</span>}
                      </Link>
                    </td>
                    <td data-label="Created">
                      <When ts={ns.create_ts} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {write.allowed && <NewNamespaceForm />}
      </section>

      {/* A service whose lobbies a data plane reports (GCM_RUNTIME=none) has no rollouts: none are read. */}
      {game.runtime !== 'none' && (
        <Rollouts gameId={gameId} base={base} namespaces={namespaces} versionNames={versionName} />
      )}

      <section aria-labelledby="versions">
        <div className="section-head">
          <h2 id="versions">Versions</h2>
          {write.allowed && (
            <Link className="button" to={`${base}/versions/new`}>
              <Plus aria-hidden size={18} />
              New version
            </Link>
          )}
        </div>
        {versions.length === 0 ? (
          <Empty>
            <p>No versions yet.</p>
          </Empty>
        ) : (
          <TableWrap labelledBy="versions">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Version id</th>
                  <th scope="col">Running in</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {versions.map((v) => {
                  const running = namespaces.filter((ns) => ns.version_id === v.version_id);
                  return (
                    <tr key={v.version_id}>
                      <th scope="row">
                        <Link to={`${base}/versions/${v.version_id}`}>{v.display_name}</Link>
                      </th>
                      <td data-label="Version id">
                        <CopyId id={v.version_id} what={`id of version ${v.display_name}`} />
                      </td>
                      <td data-label="Running in">
                        {running.length === 0 ? '—' : running.map((ns) => ns.display_name).join(', ')}
                      </td>
                      <td data-label="Created">
                        <When ts={v.create_ts} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}

interface Step {
  title: string;
  how: string;
  to: string;
  done: boolean;
  icon: React.ReactNode;
}

/** The first steps of a new game, each linking to where it is done and ticked once it is. */
function FirstSteps({ steps }: { steps: Step[] }) {
  const done = steps.filter((s) => s.done).length;
  return (
    <section className="checklist" aria-labelledby="first-steps">
      <h2 id="first-steps">First steps</h2>
      <p className="fine">
        {done} of {steps.length} done: from an empty game to servers the CLI can deploy.
      </p>
      <ol>
        {steps.map((step) => (
          <li key={step.title} className={step.done ? 'done' : undefined}>
            <span className="tick">
              {step.done ? <Check aria-hidden size={20} /> : <Circle aria-hidden size={20} />}
            </span>
            <span>
              {step.done ? (
                <span className="step-title">
                  {step.title} <span className="visually-hidden">(done)</span>
                </span>
              ) : (
                <Link className="step-title" to={step.to}>
                  {step.title}
                </Link>
              )}
              <span className="fine"> {step.how}</span>
            </span>
            <span aria-hidden className="step-icon">
              {step.icon}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
