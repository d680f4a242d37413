import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function VersionPage() {
  useTitle('Version');
  return <h1>Version</h1>;
}
