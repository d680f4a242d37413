/**
 * The plans and the upload limits clients check before a round trip (the service stays the judge). This
 * file imports nothing: the dashboard takes it in as `@gcm/contract/limits` without the schema library.
 */

/** Cheapest first: the order decides what is an upgrade and what a downgrade. */
export const PLANS = ['trial', 'indie', 'studio'] as const;
export type Plan = (typeof PLANS)[number];

/**
 * The smallest file a build may be uploaded in parts (multipart_upload): S3 and its kin refuse to join
 * parts under 5 MiB but the last, so a smaller file goes in one PUT.
 */
export const MULTIPART_MIN_BYTES = 5 * 1024 * 1024;

/** Avatars must be under 2 MB: enough for a crisp square icon, small enough to serve from this service. */
export const AVATAR_MAX_BYTES = 1_999_999;
