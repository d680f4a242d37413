import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function NewVersionPage() {
  useTitle('New version');
  return <h1>New version</h1>;
}
