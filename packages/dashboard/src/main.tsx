import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { SignedInLayout } from './components/Layout';
import { GamePage } from './pages/Game';
import { HomePage } from './pages/Home';
import { NotFoundPage } from './pages/NotFound';
import { SignInPage } from './pages/SignIn';
import { SignUpPage } from './pages/SignUp';
import { TeamGamesPage } from './pages/TeamGames';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change on a retry; a network blip or 5xx may.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

/** Every page has an address of its own: the selected team and game are in it. */
const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/sign-up', element: <SignUpPage /> },
  {
    element: <SignedInLayout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/teams/:teamId', element: <TeamGamesPage /> },
      { path: '/teams/:teamId/games/:gameId', element: <GamePage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
