import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { acceptInvitation, signUp } from '../api/auth';
import { type Account, AccountFields } from '../components/AccountFields';
import { AuthForm, NarrowPage } from '../components/AuthForm';
import { useTitle } from '../components/Layout';

/**
 * `/sign-up?invitation=<id>&email=<address>`: make an account and, when the link names an invitation,
 * accept it at once. The service allows sign-up to invited emails only unless GCM_SIGNUP says otherwise;
 * its refusal is shown as it words it.
 */
export function SignUpPage() {
  useTitle('Create your account');
  const [params] = useSearchParams();
  const invitation = params.get('invitation');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [account, setAccount] = useState<Account>({
    name: '',
    email: params.get('email') ?? '',
    password: '',
  });
  const attempt = useMutation({
    mutationFn: async () => {
      await signUp(account.name, account.email, account.password);
      if (invitation !== null) await acceptInvitation(invitation);
    },
    onSuccess: () => {
      queryClient.clear();
      navigate('/', { replace: true });
    },
  });
  return (
    <NarrowPage title="Create your account">
      {invitation !== null && <p className="lead">You were invited to a team: your account joins it.</p>}
      <AuthForm
        onSubmit={() => attempt.mutate()}
        request={attempt}
        words={{ submit: 'Create account', busy: 'Creating…', failed: 'Could not create the account' }}
      >
        <AccountFields value={account} onChange={setAccount} />
      </AuthForm>
      <p className="fine">
        Have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </NarrowPage>
  );
}
