import { useTitle } from '../components/Layout';

/** Being built: see the dashboard issue. */
export function InvitationsPage() {
  useTitle('Invitations');
  return <h1>Invitations</h1>;
}
