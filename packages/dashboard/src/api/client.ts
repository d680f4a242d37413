import { createGcmClient, type Schema } from '@gcm/sdk';

/** The error class, its checks and `unwrap` are the SDK's: the CLI and a studio's backend see the same ones. */
export { ApiError, toApiError, unwrap } from '@gcm/sdk';

/** The service's typed API client: same origin, so the session cookie goes along and nothing else does. */
export const api = createGcmClient({ baseUrl: '', credentials: 'same-origin' });

export type ErrorBody = Schema<'ErrorBody'>;
export type GameSummary = Schema<'GameSummary'>;
export type GameFull = Schema<'GameFull'>;
export type Inspect = Schema<'InspectResponse'>;
export type Person = NonNullable<Inspect['agent']['person']>;
