import { useTitle } from '../../components/Layout';

/** Being built: see the dashboard issue. */
export function BillingPage() {
  useTitle('Billing');
  return <h1>Billing</h1>;
}
