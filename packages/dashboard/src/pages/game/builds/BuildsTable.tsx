import type { Build, Environment } from '../../../api/builds';
import { TableWrap } from '../../../components/TableWrap';
import { BuildRow } from './BuildRow';

/** A page of builds: a row each, and under the row being edited its tag editor. */
export function BuildsTable({
  builds,
  env,
  canWrite,
  editing,
  filterLink,
  onEdit,
  closeEdit,
  filters,
}: {
  builds: Build[];
  env: Environment;
  canWrite: boolean;
  editing: string | null;
  filterLink: (key: string, value: string) => { search: string };
  onEdit: (buildId: string) => void;
  closeEdit: () => void;
  filters: [string, string][];
}) {
  const columns = canWrite ? 7 : 6;
  const filtered = new Set(filters.map(([k, v]) => `${k}=${v}`));
  return (
    <TableWrap labelledBy="builds-list">
      <table className="builds-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Build id</th>
            <th scope="col">Size</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">Tags</th>
            {canWrite && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {builds.map((build) => (
            <BuildRow
              key={build.id}
              build={build}
              env={env}
              canWrite={canWrite}
              isEditing={editing === build.id}
              columns={columns}
              filtered={filtered}
              filterLink={filterLink}
              onEdit={() => onEdit(build.id)}
              closeEdit={closeEdit}
            />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
