import { AuditLog } from '../../components/AuditLog';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';

/** `/teams/:teamId/games/:gameId/audit`: the game's writes (admins and owners). */
export function GameAuditPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(`${game.display_name}: audit log`);
  return (
    <>
      <p className="eyebrow">{game.display_name}</p>
      <h1>Audit log</h1>
      <AuditLog scope={{ kind: 'game', id: gameId }} teamId={teamId} />
    </>
  );
}
