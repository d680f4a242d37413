import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function GameSettingsPage() {
  useTitle('Settings');
  return <h1>Settings</h1>;
}
