import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function TeamMembersPage() {
  useTitle('Members');
  return <h1>Members</h1>;
}
