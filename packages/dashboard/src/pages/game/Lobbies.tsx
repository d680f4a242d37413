import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function LobbiesPage() {
  useTitle('Lobbies');
  return <h1>Lobbies</h1>;
}
