/**
 * A route's own hooks of one kind as a new array (its option holds one, several, or none), for onRoute
 * hooks that add to them: never the array itself, which Fastify may share with the HEAD route of a GET.
 */
export function hooksOf<H>(hooks: H | H[] | undefined): H[] {
  return hooks === undefined ? [] : ([] as H[]).concat(hooks);
}
