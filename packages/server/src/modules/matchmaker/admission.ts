import type { CaptchaAnswer } from '@gcm/contract';
import type { Deps } from '../../deps.js';

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

export async function admitPlayer(_deps: Deps, _request: AdmissionRequest): Promise<void> {
  // Filled by the admission work item of issue 37 (captcha and verification); until then every player the
  // other rules allow is admitted.
}
