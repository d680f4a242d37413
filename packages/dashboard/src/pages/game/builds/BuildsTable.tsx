import type { Build, Environment } from '../../../api/builds';
import { Table } from '../../../components/TableWrap';
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
    <Table
      labelledBy="builds-list"
      className="builds-table"
      columns={['Name', 'Build id', 'Size', 'Created', 'State', 'Tags']}
      actions={canWrite}
    >
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
    </Table>
  );
}
