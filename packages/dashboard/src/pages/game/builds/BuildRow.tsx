import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { Build, Environment } from '../../../api/builds';
import { formatBytes } from '../../../api/uploads';
import { CopyButton, CopyId } from '../../../components/CopyButton';
import { When } from '../../../components/status';
import { TagEditor } from './TagEditor';

/** One build: its facts, its tags as filter links, and for writers the button that opens the tag editor. */
export function BuildRow({
  build,
  env,
  canWrite,
  isEditing,
  columns,
  filtered,
  filterLink,
  onEdit,
  closeEdit,
}: {
  build: Build;
  env: Environment;
  canWrite: boolean;
  isEditing: boolean;
  columns: number;
  filtered: Set<string>;
  filterLink: (key: string, value: string) => { search: string };
  onEdit: () => void;
  closeEdit: () => void;
}) {
  const tags = Object.entries(build.tags);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(isEditing);
  // When the editor closes (saved or cancelled), the keyboard goes back to the button that opened it.
  useEffect(() => {
    if (wasEditing.current && !isEditing) editButton.current?.focus();
    wasEditing.current = isEditing;
  }, [isEditing]);
  return (
    <>
      <tr>
        <th scope="row" className="build-name">
          {build.name}
        </th>
        <td className="mono" data-label="Build id">
          <CopyId id={build.id} what={`id of ${build.name}`} />
        </td>
        <td className="nowrap" data-label="Size">
          <span title={`${build.content_length} bytes`}>{formatBytes(build.content_length)}</span>
        </td>
        <td data-label="Created">
          <When ts={build.created_at} />
        </td>
        <td data-label="State">
          <span className="state">Complete</span>
        </td>
        <td data-label="Tags">
          {tags.length === 0 ? (
            <span className="fine">none</span>
          ) : (
            <ul className="chips" aria-label={`Tags of ${build.name}`}>
              {tags.map(([key, value]) => (
                <li key={key} className="chip">
                  {filtered.has(`${key}=${value}`) ? (
                    <span className="mono tag-text" title={`${key}=${value}`}>
                      {key}={value}
                    </span>
                  ) : (
                    <Link
                      className="mono tag-text"
                      to={filterLink(key, value)}
                      title={`${key}=${value}: show only builds tagged so`}
                    >
                      {key}={value}
                    </Link>
                  )}
                  <CopyButton value={value} what={`value of tag ${key}`} />
                </li>
              ))}
            </ul>
          )}
        </td>
        {canWrite && (
          <td className="row-actions">
            <button
              ref={editButton}
              type="button"
              className="secondary nowrap"
              aria-expanded={isEditing}
              aria-label={`Edit tags of ${build.name}`}
              onClick={isEditing ? closeEdit : onEdit}
            >
              Edit tags
            </button>
          </td>
        )}
      </tr>
      {canWrite && isEditing && (
        <tr className="edit-row">
          <td colSpan={columns}>
            <TagEditor build={build} env={env} onDone={closeEdit} />
          </td>
        </tr>
      )}
    </>
  );
}
