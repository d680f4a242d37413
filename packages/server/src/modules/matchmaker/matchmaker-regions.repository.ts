import type { Db } from '../../db/open-db.js';

/** The configuration of the version a namespace runs now; undefined when the namespace is gone. */
export function findNamespaceConfig(db: Db, gameId: string, namespaceId: string) {
  return db
    .selectFrom('namespaces')
    .innerJoin('versions', 'versions.version_id', 'namespaces.version_id')
    .select('versions.config_json')
    .where('namespaces.namespace_id', '=', namespaceId)
    .where('namespaces.game_id', '=', gameId)
    .executeTakeFirst();
}
