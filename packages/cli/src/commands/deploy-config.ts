/**
 * A config as `gcm deploy` uses it: deploy makes the pushed build the image_id of every game mode whose
 * runtime names none, so a config kept for deploy names none, and is checked with a stand-in build.
 */

/** Stands for the build before it is pushed, so the config is checked offline before a long upload. */
export const PLACEHOLDER_IMAGE_ID = 'gcm-deploy-image';

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A game mode's or the matchmaker's runtime, under either of its names (as the service resolves it). */
function runtimeIn(owner: Json): Json | undefined {
  const runtime = owner.container ?? owner.docker;
  return isObject(runtime) ? runtime : undefined;
}

const namesNoImage = (runtime: Json) =>
  runtime.image_id === undefined || runtime.image_id === null || runtime.image_id === '';

/**
 * Gives every game mode whose runtime names no image_id the build `imageId`, where the service will read it:
 * the game mode's own runtime, else the matchmaker's (a game mode's runtime replaces the matchmaker's whole),
 * else a new `container` of the game mode's own. An image_id the config names is kept. Works on a config of
 * any shape (the schema is checked after), changing `config` in place; answers the game modes that now run
 * `imageId`.
 */
export function fillImageIds(config: unknown, imageId: string): string[] {
  if (!isObject(config) || !isObject(config.matchmaker)) return [];
  const matchmaker = config.matchmaker;
  if (!isObject(matchmaker.game_modes)) return [];
  const top = runtimeIn(matchmaker);
  const running: string[] = [];
  for (const [name, mode] of Object.entries(matchmaker.game_modes)) {
    if (!isObject(mode)) continue;
    let target = runtimeIn(mode) ?? top;
    if (target === undefined) {
      target = {};
      // A null `docker` is "not set"; dropped so that no check sees two runtimes.
      if (mode.docker === null) delete mode.docker;
      mode.container = target;
    }
    if (namesNoImage(target)) target.image_id = imageId;
    if (target.image_id === imageId) running.push(name);
  }
  return running;
}

/** Whether an image_id is named anywhere in the config: one that names none is a config for `gcm deploy`. */
export function namesAnyImageId(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesAnyImageId);
  if (!isObject(value)) return false;
  return Object.entries(value).some(
    ([key, inner]) =>
      (key === 'image_id' && typeof inner === 'string' && inner !== '') || namesAnyImageId(inner),
  );
}
