import { useTitle } from '../components/Layout';

/** Being built: see the dashboard issue. */
export function ForgotPasswordPage() {
  useTitle('Reset your password');
  return <h1>Reset your password</h1>;
}
