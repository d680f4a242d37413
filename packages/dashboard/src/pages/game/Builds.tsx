import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function BuildsPage() {
  useTitle('Builds');
  return <h1>Builds</h1>;
}
