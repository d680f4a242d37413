import { Type } from 'typebox';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Backups } from './backups.service.js';

const BackupAnswer = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'Where the service wrote it, on its own machine.' }),
  created_ts: Type.Integer({ description: 'The copy holds every write acknowledged before this time.' }),
  schema_version: Type.String(),
  blob_count: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
});

/** The operator's online backup of the embedded store (README "Backups and restore"). */
export function backupsRoutes(app: TypedApp, backups: Backups): void {
  app.post(
    '/cloud/admin/backups',
    routeOptions(
      {
        operationId: 'admin.createBackup',
        auth: 'operator',
        summary: 'Writes a backup of the embedded store, its blobs and keys into the backup dir',
        tag: 'admin',
        internal: true,
      },
      { response: { 200: BackupAnswer } },
    ),
    async () => {
      const written = await backups.create();
      return {
        name: written.name,
        path: written.path,
        created_ts: written.created_ts,
        schema_version: written.schema_version,
        blob_count: written.blob_count,
        bytes: written.bytes,
      };
    },
  );
}
