import type { CaptchaAnswer, CaptchaConfigType } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { postOnce } from '../../lib/outbound-post.js';

/**
 * What find, join and create ask before a player gets a slot (issue 37): the version's captcha
 * (requests_before_reverify, verification_ttl) and the game mode action's verification hook. Throws the
 * AppError that refuses the player; returns when the player is admitted. Rate limits per address and per
 * token are taken before this (they guard the service, not the game).
 */
export interface AdmissionRequest {
  action: 'find' | 'join' | 'create';
  namespaceId: string;
  gameId: string;
  /** The game mode's name id and its action config as the namespace's current version has it. */
  gameMode: string;
  /** `verification {url, headers}` of the game mode's action, when set. */
  verification: { url: string; headers: Record<string, string> } | null;
  /** The version config's matchmaker.captcha, when set (secret keys included: never logged). */
  captcha: unknown | null;
  /** The regions the request may be served in (find), or the lobby's (join, create). */
  regions: string[];
  /** join: the lobby asked for, with its state. */
  lobby?: { lobby_id: string; region_id: string; state: unknown };
  clientAddr: string;
  /** The client's User-Agent, passed on to the verification hook as the original did. */
  userAgent?: string;
  /** The public (or development) token's id, for captcha memory per client. */
  tokenId: string;
  captchaAnswer?: CaptchaAnswer;
  verificationData?: unknown;
  /** create: the lobby's publicity, tags, max_players and lobby_config as asked. */
  create?: {
    publicity: string;
    tags: Record<string, string>;
    max_players: number | null;
    lobby_config: unknown;
  };
}

/** How long a verification hook has to answer (issue 37). */
export const VERIFICATION_TIMEOUT_MS = 5_000;
/** How long a captcha provider has to answer siteverify. */
export const CAPTCHA_TIMEOUT_MS = 5_000;
/** Of a hook's answer nothing is used but its status; of a provider's, its small JSON. */
const ANSWER_BYTES_MAX = 16 * 1024;

/**
 * Admits the player or throws the refusal: first the version's captcha, then the action's verification hook
 * (as the original: its API checked the captcha before the find reached the hook).
 */
export async function admitPlayer(deps: Deps, request: AdmissionRequest): Promise<void> {
  if (request.captcha !== null && request.captcha !== undefined) {
    await checkCaptcha(deps, request, request.captcha as CaptchaConfigType);
  }
  if (request.verification !== null) await verify(deps, request, request.verification);
}

/**
 * The original's external verification request (rivet-gg/rivet svc/pkg/mm/util/src/verification.rs,
 * ExternalVerificationRequest), field for field, so a hook written for it works here: docs/interface-notes.md.
 */
function verificationBody(request: AdmissionRequest): string {
  const lobby = request.lobby;
  const create = request.create;
  return JSON.stringify({
    verification_data: request.verificationData ?? null,
    game: {
      namespace_id: request.namespaceId,
      // Game modes have no id of their own here: the name id stands for it.
      game_mode_id: request.gameMode,
      game_mode_name_id: request.gameMode,
      lobby:
        lobby === undefined
          ? null
          : { lobby_id: lobby.lobby_id, region_id: lobby.region_id, region_name_id: lobby.region_id },
      state: lobby?.state ?? null,
      config: create?.lobby_config ?? null,
      tags: create?.tags ?? {},
      dynamic_max_players: create?.max_players ?? null,
    },
    clients: {
      [request.clientAddr]: { user_agent: request.userAgent ?? null, latitude: null, longitude: null },
    },
    join_kind: 'Normal',
    kind: ACTION_KINDS[request.action],
  });
}

const ACTION_KINDS = { find: 'Find', join: 'Join', create: 'Create' } as const;

/**
 * POSTs to the game mode action's hook under the webhooks' SSRF rules (GCM_WEBHOOK_ALLOW_HTTP,
 * GCM_WEBHOOK_ALLOW_INTERNAL): a 2xx admits; any other answer, no answer within 5 s, a refused connection or
 * a blocked address refuses, with the hook's status (null without one).
 */
async function verify(
  deps: Deps,
  request: AdmissionRequest,
  hook: { url: string; headers: Record<string, string> },
): Promise<void> {
  const { allowHttp, allowInternal } = deps.config.webhooks;
  let url: URL;
  try {
    url = new URL(hook.url);
  } catch {
    throw errors.matchmakerVerificationFailed(null, 'the game mode’s verification url is not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) {
    throw errors.matchmakerVerificationFailed(
      null,
      'the verification url must be https:// (http:// only with GCM_WEBHOOK_ALLOW_HTTP)',
    );
  }
  const outcome = await postOnce(
    url,
    verificationBody(request),
    { ...hook.headers, 'content-type': 'application/json' },
    { allowInternal, timeoutMs: VERIFICATION_TIMEOUT_MS, maxBodyBytes: ANSWER_BYTES_MAX },
  );
  if (outcome.status === null) {
    throw errors.matchmakerVerificationFailed(
      null,
      `the verification hook did not answer (${outcome.error})`,
    );
  }
  if (outcome.status < 200 || outcome.status > 299) {
    throw errors.matchmakerVerificationFailed(
      outcome.status,
      `the verification hook refused the player (HTTP ${outcome.status})`,
    );
  }
}

/**
 * A pass is remembered per namespace and client address in the rate counters (the store's table on
 * PostgreSQL, so every instance sees it; memory on SQLite, whose one process owns the store): a pass starts a
 * window of `verification_ttl` ms with no hits, each request without an answer counts one, and more than
 * `requests_before_reverify` of them, or the window's end, asks again.
 */
async function checkCaptcha(deps: Deps, request: AdmissionRequest, config: CaptchaConfigType): Promise<void> {
  const key = `captcha:${request.namespaceId}:${request.clientAddr}`;
  const answer = request.captchaAnswer;
  const a = config.captcha_provider_a ?? undefined;
  const b = config.captcha_provider_b ?? undefined;
  if (answer?.hcaptcha !== undefined || answer?.turnstile !== undefined) {
    const [provider, secret, verifyUrl, response] =
      answer.hcaptcha !== undefined
        ? (['hcaptcha', a?.secret_key, deps.config.matchmaker.captchaAVerifyUrl, answer.hcaptcha] as const)
        : ([
            'turnstile',
            b?.secret_key,
            deps.config.matchmaker.captchaBVerifyUrl,
            answer.turnstile as NonNullable<CaptchaAnswer['turnstile']>,
          ] as const);
    if (secret === undefined || secret === null) {
      throw errors.matchmakerCaptchaInvalid(
        `this game does not use ${provider}: answer the captcha it names`,
      );
    }
    await siteverify(provider, verifyUrl, secret, response.client_response, request.clientAddr);
    await deps.rateCounters.restart(key, config.verification_ttl);
    return;
  }
  const running = await deps.rateCounters.peek(key);
  if (running !== undefined) {
    const counted = await deps.rateCounters.hit(key, config.verification_ttl);
    // The same window (not one started by this hit after the pass ran out) with allowance left.
    if (counted.resetTs === running.resetTs && counted.hits <= config.requests_before_reverify) return;
  }
  const providers: Record<string, { site_key: string }> = {};
  if (a?.site_key !== undefined && a.site_key !== null) providers.hcaptcha = { site_key: a.site_key };
  if (b !== undefined) providers.turnstile = { site_key: b.site_key };
  throw errors.matchmakerCaptchaRequired(providers);
}

/**
 * hCaptcha's and Turnstile's documented siteverify: a form POST of secret, response and remoteip answered by
 * JSON `{success, "error-codes"?}`. Anything but `success: true` refuses; the secret is never logged or
 * echoed.
 */
async function siteverify(
  provider: 'hcaptcha' | 'turnstile',
  verifyUrl: string,
  secret: string,
  response: string,
  remoteIp: string,
): Promise<void> {
  const form = new URLSearchParams({ secret, response, remoteip: remoteIp }).toString();
  const outcome = await postOnce(
    new URL(verifyUrl),
    form,
    { 'content-type': 'application/x-www-form-urlencoded' },
    // The operator configured this URL: it may be on the operator's own network.
    { allowInternal: true, timeoutMs: CAPTCHA_TIMEOUT_MS, maxBodyBytes: ANSWER_BYTES_MAX },
  );
  if (outcome.status === null) {
    throw errors.matchmakerCaptchaInvalid(`${provider} could not be asked (${outcome.error}); try again`);
  }
  let answer: { success?: unknown; 'error-codes'?: unknown } = {};
  try {
    answer = JSON.parse(outcome.body) as typeof answer;
  } catch {
    // Not JSON: no success said, refused below.
  }
  if (outcome.status !== 200 || answer.success !== true) {
    const codes = Array.isArray(answer['error-codes'])
      ? answer['error-codes']
          .filter((c): c is string => typeof c === 'string')
          .slice(0, 8)
          .map((c) => c.slice(0, 64))
      : [];
    throw errors.matchmakerCaptchaInvalid(
      `${provider} did not accept the captcha response${codes.length === 0 ? '' : ` (${codes.join(', ')})`}`,
    );
  }
}
