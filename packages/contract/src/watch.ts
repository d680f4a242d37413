import { type Static, Type } from 'typebox';

/** Interface 2.6: the version of the returned data, as an opaque decimal string. */
export const WatchSchema = Type.Object({
  index: Type.String({ description: 'pass as watch_index to wait for the next change' }),
});

export const WatchQuery = {
  watch_index: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'block until the data changes from this index (at most the watch timeout)',
    }),
  ),
};

export type WatchSchema = Static<typeof WatchSchema>;
