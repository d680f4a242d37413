import { roleCovers } from '@gcm/contract/roles';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  type MintRequest,
  type NamespaceSummary,
  type TokenResponse,
  type TokenSummary,
  useMintToken,
  useRevokeToken,
  useTokens,
} from '../../api/live';
import { useInspect, useTeamRole } from '../../api/queries';
import { ConfirmStep } from '../../components/ConfirmStep';
import { CopyId } from '../../components/CopyButton';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../../components/status';
import { TableWrap } from '../../components/TableWrap';
import './live.css';

/** A token just minted: its text lives here, in the page's state, and nowhere else. */
interface Fresh {
  response: TokenResponse;
  request: MintRequest;
}

const KINDS: { kind: MintRequest['kind']; label: string }[] = [
  { kind: 'cloud', label: 'Cloud token: acts on this whole game' },
  { kind: 'reporter', label: 'Reporter token: reports one namespace’s lobbies' },
];

/** `/teams/:teamId/games/:gameId/tokens?cursor=`: the game's cloud and reporter tokens (admins and owners). */
export function TokensPage() {
  const { teamId, game } = useGameContext();
  useTitle(`${game.display_name}: tokens`);
  const inspect = useInspect(true);
  const role = useTeamRole(teamId);
  const admin = roleCovers(role, 'admin');

  let body: React.ReactNode;
  if (inspect.isPending) body = <Loading what="your role" />;
  else if (inspect.isError) body = <ErrorMessage error={inspect.error} />;
  else if (!admin)
    body = (
      <Empty>
        <p>
          <strong>Admins manage tokens.</strong>
        </p>
        <p>
          Minting, listing and revoking this game’s tokens is for the team’s admins and owner
          {role === undefined ? '' : `; your role is ${role}`}. Ask one of them for a token.
        </p>
      </Empty>
    );
  else body = <TokensAdmin userId={inspect.data.agent.person?.user_id} />;

  return (
    <>
      <h1>Tokens</h1>
      <p className="lead">
        Cloud tokens act on this whole game (the CLI, CI); reporter tokens let the hosting data plane report
        one namespace’s lobbies.
      </p>
      {body}
    </>
  );
}

function TokensAdmin({ userId }: { userId: string | undefined }) {
  const { gameId, game } = useGameContext();
  const [fresh, setFresh] = useState<Fresh | null>(null);
  return (
    <>
      {fresh !== null && (
        <FreshToken fresh={fresh} namespaces={game.namespaces} onDone={() => setFresh(null)} />
      )}
      <MintForm gameId={gameId} namespaces={game.namespaces} onMinted={setFresh} />
      <TokenList gameId={gameId} userId={userId} namespaces={game.namespaces} />
    </>
  );
}

function MintForm(props: {
  gameId: string;
  namespaces: NamespaceSummary[];
  onMinted: (fresh: Fresh) => void;
}) {
  const { gameId, namespaces, onMinted } = props;
  const [kind, setKind] = useState<MintRequest['kind']>('cloud');
  const [namespaceId, setNamespaceId] = useState(namespaces[0]?.namespace_id ?? '');
  const mint = useMintToken(gameId);
  const noNamespace = kind === 'reporter' && namespaceId === '';
  const selectId = useId();

  return (
    <section aria-labelledby="mint">
      <h2 id="mint">Create a token</h2>
      <form
        className="live-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (noNamespace) return;
          const request: MintRequest = kind === 'cloud' ? { kind } : { kind, namespaceId };
          mint.mutate(request, {
            onSuccess: (response) => {
              onMinted({ response, request });
              // The text stays in the page's state only, not in the mutation.
              mint.reset();
            },
          });
        }}
      >
        <fieldset>
          <legend>Kind</legend>
          {KINDS.map((option) => (
            <label className="live-radio" key={option.kind}>
              <input
                type="radio"
                name="kind"
                value={option.kind}
                checked={kind === option.kind}
                onChange={() => setKind(option.kind)}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
        {kind === 'reporter' &&
          (namespaces.length === 0 ? (
            <p className="fine">This game has no namespace yet to report lobbies for.</p>
          ) : (
            <>
              <label htmlFor={selectId}>Namespace</label>
              <select
                id={selectId}
                value={namespaceId}
                onChange={(event) => setNamespaceId(event.target.value)}
              >
                {namespaces.map((ns) => (
                  <option key={ns.namespace_id} value={ns.namespace_id}>
                    {ns.display_name} ({ns.name_id})
                  </option>
                ))}
              </select>
            </>
          ))}
        <div className="live-actions">
          <button type="submit" disabled={mint.isPending || noNamespace}>
            {mint.isPending ? 'Creating…' : 'Create token'}
          </button>
        </div>
        {mint.isError && <ErrorMessage error={mint.error} title="Could not create the token" />}
      </form>
    </section>
  );
}

/** The one showing of a new token's text, with a way to copy it. */
function FreshToken(props: { fresh: Fresh; namespaces: NamespaceSummary[]; onDone: () => void }) {
  const { fresh, namespaces, onDone } = props;
  const [copied, setCopied] = useState<'no' | 'yes' | 'unavailable'>('no');
  const fieldId = useId();
  const what =
    fresh.request.kind === 'cloud'
      ? 'cloud token'
      : `reporter token for ${namespaceName(namespaces, fresh.request.namespaceId)}`;

  const copy = async () => {
    // The clipboard API exists only in secure contexts (HTTPS or localhost) and may be refused.
    if (navigator.clipboard === undefined) {
      setCopied('unavailable');
      return;
    }
    try {
      await navigator.clipboard.writeText(fresh.response.token);
      setCopied('yes');
    } catch {
      setCopied('unavailable');
    }
  };

  return (
    <section className="live-secret" aria-labelledby="fresh-token">
      <h2 id="fresh-token">Your new {what}</h2>
      <p className="live-warn-text">Copy it now: you will not see it again. The service keeps only its id.</p>
      <label htmlFor={fieldId}>Token</label>
      <div className="live-secret-row">
        <input
          id={fieldId}
          readOnly
          value={fresh.response.token}
          autoComplete="off"
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="fine" aria-live="polite">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'unavailable' &&
          'This browser does not allow copying from here: select the token and copy it yourself.'}
      </p>
      <p className="fine">
        Token id <span className="mono">{fresh.response.token_id}</span> · expires{' '}
        <When ts={fresh.response.expire_ts} />
      </p>
      <div className="live-actions">
        <button type="button" className="secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}

function namespaceName(namespaces: NamespaceSummary[], namespaceId: string): string {
  const ns = namespaces.find((n) => n.namespace_id === namespaceId);
  return ns === undefined ? namespaceId : ns.display_name;
}

function TokenList(props: { gameId: string; userId: string | undefined; namespaces: NamespaceSummary[] }) {
  const { gameId, userId, namespaces } = props;
  const [params] = useSearchParams();
  const cursor = params.get('cursor') ?? undefined;
  const tokens = useTokens(gameId, cursor, true);

  let body: React.ReactNode;
  if (tokens.isPending) body = <Loading what="tokens" />;
  else if (tokens.isError) body = <ErrorMessage error={tokens.error} title="Could not load the tokens" />;
  else if (tokens.data.tokens.length === 0)
    body = (
      <Empty>
        <p>{cursor === undefined ? 'This game has no tokens yet.' : 'No more tokens.'}</p>
      </Empty>
    );
  else
    body = (
      <TableWrap labelledBy="token-list">
        <table className="live-table">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Token id</th>
              <th scope="col">Minted by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.tokens.map((token) => (
              <TokenRow
                key={token.token_id}
                gameId={gameId}
                token={token}
                userId={userId}
                namespaces={namespaces}
              />
            ))}
          </tbody>
        </table>
      </TableWrap>
    );

  const next = tokens.data?.cursor;
  return (
    <section aria-labelledby="token-list">
      <h2 id="token-list">Tokens of this game</h2>
      <p className="fine">
        Newest first; revoked and expired tokens stay listed. A token’s text is never shown here.
      </p>
      {body}
      {(cursor !== undefined || next !== undefined) && (
        <nav aria-label="Token pages" className="live-pager">
          {cursor !== undefined && <Link to="?">First page</Link>}
          {next !== undefined && <Link to={`?${new URLSearchParams({ cursor: next })}`}>Next page</Link>}
        </nav>
      )}
    </section>
  );
}

function TokenRow(props: {
  gameId: string;
  token: TokenSummary;
  userId: string | undefined;
  namespaces: NamespaceSummary[];
}) {
  const { gameId, token, userId, namespaces } = props;
  const revoke = useRevokeToken(gameId);
  const expired = token.expire_ts !== null && Date.parse(token.expire_ts) <= Date.now();
  const short = token.token_id.slice(0, 8);

  let state: React.ReactNode;
  if (token.revoke_ts !== null)
    state = (
      <>
        Revoked <When ts={token.revoke_ts} />
      </>
    );
  else if (expired) state = 'Expired';
  else
    state = (
      <ConfirmStep
        lead={<span>Active</span>}
        action="Revoke"
        actionLabel={`Revoke token ${short}`}
        question="Revoke it? Anything using it stops working at once."
        confirm="Yes, revoke"
        confirming="Revoking…"
        pending={revoke.isPending}
        onConfirm={() => revoke.mutate(token.token_id)}
      />
    );

  return (
    <tr>
      <td data-label="Kind">
        {token.kind === 'cloud' ? 'Cloud' : 'Reporter'}
        {token.namespace_id !== null && (
          <span className="fine"> · {namespaceName(namespaces, token.namespace_id)}</span>
        )}
      </td>
      <th scope="row" title={token.token_id}>
        <CopyId id={token.token_id} what="token id" />
      </th>
      <td data-label="Minted by">
        {token.user_id === undefined ? (
          'the operator'
        ) : token.user_id === userId ? (
          'you'
        ) : (
          <span className="mono" title={token.user_id}>
            {token.user_id.slice(0, 8)}
          </span>
        )}
      </td>
      <td data-label="Created">
        <When ts={token.create_ts} />
      </td>
      <td data-label="Last used">
        {token.last_used_ts === null ? 'never' : <When ts={token.last_used_ts} />}
      </td>
      <td data-label="Expires">{token.expire_ts === null ? 'never' : <When ts={token.expire_ts} />}</td>
      <td data-label="State">
        {state}
        {revoke.isError && <ErrorMessage error={revoke.error} title="Could not revoke the token" />}
      </td>
    </tr>
  );
}
