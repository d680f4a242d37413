import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { GameLayout } from './components/GameLayout';
import { SignedInLayout } from './components/Layout';
import { ForgotPasswordPage } from './pages/ForgotPassword';
import { GameAuditPage } from './pages/game/Audit';
import { BillingPage } from './pages/game/Billing';
import { BuildsPage } from './pages/game/Builds';
import { LobbiesPage } from './pages/game/Lobbies';
import { LobbyPage } from './pages/game/lobby/LobbyPage';
import { NewVersionPage } from './pages/game/NewVersion';
import { GameOverviewPage } from './pages/game/Overview';
import { GameSettingsPage } from './pages/game/Settings';
import { TokensPage } from './pages/game/Tokens';
import { VersionPage } from './pages/game/Version';
import { HomePage } from './pages/Home';
import { InvitationsPage } from './pages/Invitations';
import { NewTeamPage } from './pages/NewTeam';
import { NotFoundPage } from './pages/NotFound';
import { ResetPasswordPage } from './pages/ResetPassword';
import { SetupPage } from './pages/Setup';
import { SignInPage } from './pages/SignIn';
import { SignUpPage } from './pages/SignUp';
import { TeamGamesPage } from './pages/TeamGames';
import { TeamAuditPage } from './pages/team/Audit';
import { TeamMembersPage } from './pages/team/Members';
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
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  { path: '/setup/:secret', element: <SetupPage /> },
  {
    element: <SignedInLayout />,
    children: [
      { path: '/', element: <HomePage /> },
      // Before `/teams/:teamId`, which would take `new` for a team id.
      { path: '/teams/new', element: <NewTeamPage /> },
      { path: '/teams/:teamId', element: <TeamGamesPage /> },
      { path: '/invitations', element: <InvitationsPage /> },
      { path: '/teams/:teamId/members', element: <TeamMembersPage /> },
      { path: '/teams/:teamId/audit', element: <TeamAuditPage /> },
      {
        path: '/teams/:teamId/games/:gameId',
        element: <GameLayout />,
        children: [
          { index: true, element: <GameOverviewPage /> },
          { path: 'versions/new', element: <NewVersionPage /> },
          { path: 'versions/:versionId', element: <VersionPage /> },
          { path: 'builds', element: <BuildsPage /> },
          { path: 'lobbies', element: <LobbiesPage /> },
          { path: 'namespaces/:namespaceId/lobbies/:lobbyId', element: <LobbyPage /> },
          { path: 'tokens', element: <TokensPage /> },
          { path: 'billing', element: <BillingPage /> },
          { path: 'audit', element: <GameAuditPage /> },
          { path: 'settings', element: <GameSettingsPage /> },
        ],
      },
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
