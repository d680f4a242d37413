import { AuditLog, type AuditNames } from '../../components/AuditLog';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';

/** `/teams/:teamId/games/:gameId/audit`: the game's writes (admins and owners). */
export function GameAuditPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(`${game.display_name}: audit log`);
  const base = `/teams/${teamId}/games/${gameId}`;
  // Versions and namespaces by the names the game has now; a deleted one keeps its short id.
  const names: AuditNames = (kind, id) => {
    if (kind === 'game' && id === gameId) return { label: game.display_name, to: base };
    if (kind === 'version') {
      const v = game.versions.find((x) => x.version_id === id);
      return v === undefined ? undefined : { label: v.display_name, to: `${base}/versions/${id}` };
    }
    if (kind === 'namespace') {
      const ns = game.namespaces.find((x) => x.namespace_id === id);
      return ns === undefined
        ? undefined
        : { label: ns.display_name, to: `${base}/lobbies?namespace=${ns.name_id}` };
    }
    return undefined;
  };
  return (
    <>
      <p className="eyebrow">{game.display_name}</p>
      <h1>Audit log</h1>
      <AuditLog scope={{ kind: 'game', id: gameId }} teamId={teamId} names={names} />
    </>
  );
}
