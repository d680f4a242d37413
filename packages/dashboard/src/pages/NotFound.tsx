import { Link } from 'react-router';
import { useTitle } from '../components/Layout';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Go to your games</Link>
      </p>
    </>
  );
}
