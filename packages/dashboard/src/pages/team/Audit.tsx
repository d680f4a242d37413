import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function TeamAuditPage() {
  useTitle('Audit log');
  return <h1>Audit log</h1>;
}
