import { type Static, Type } from 'typebox';
import { Id, Text } from './common.js';
import { WatchQuery, WatchSchema } from './watch.js';

/** A JWT: three base64url parts; the length only bounds what is worth verifying. */
const DeviceLinkToken = Text(2048, {
  minLength: 1,
  description: 'the device_link_token (a JWT) that prepare returned',
});

export const PrepareDeviceLinkResponse = Type.Object({
  device_link_id: Id,
  device_link_token: Type.String({
    description: 'a JWT naming the link, valid one hour; grants nothing itself',
  }),
  device_link_url: Type.String({ description: 'the page where a person completes the link' }),
  device_link_user_code: Type.String({
    description:
      'a confirmation code (XXXX-XXXX) the page shows too: print it, so the person can tell the page is for this device',
  }),
});

export const GetDeviceLinkQuery = Type.Object({ device_link_token: DeviceLinkToken, ...WatchQuery });

/** Interface 2.5. */
export const DeviceLinkResult = Type.Object({
  cloud_token: Type.Optional(
    Type.String({ description: 'once the link is completed, until it expires; always the same token' }),
  ),
  watch: WatchSchema,
});

export const CompleteDeviceLinkBody = Type.Object({ device_link_token: DeviceLinkToken, game_id: Id });

export const DeviceLinkPageParams = Type.Object({ token: DeviceLinkToken });

export const DeviceLinkPage = Type.Unsafe<string>({
  description: 'the HTML page (also for a link that is expired, 410, used, or not valid, 400)',
  content: { 'text/html': { schema: { type: 'string' } } },
});

export type PrepareDeviceLinkResponse = Static<typeof PrepareDeviceLinkResponse>;
export type GetDeviceLinkQuery = Static<typeof GetDeviceLinkQuery>;
export type DeviceLinkResult = Static<typeof DeviceLinkResult>;
export type CompleteDeviceLinkBody = Static<typeof CompleteDeviceLinkBody>;
export type DeviceLinkPageParams = Static<typeof DeviceLinkPageParams>;
export type DeviceLinkPage = Static<typeof DeviceLinkPage>;
