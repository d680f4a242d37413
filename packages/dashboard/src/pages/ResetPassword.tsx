import { useTitle } from '../components/Layout';

/** Being built: see the dashboard issue. */
export function ResetPasswordPage() {
  useTitle('Choose a new password');
  return <h1>Choose a new password</h1>;
}
