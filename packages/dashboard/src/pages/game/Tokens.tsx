import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function TokensPage() {
  useTitle('Tokens');
  return <h1>Tokens</h1>;
}
