import { useState } from 'react';
import { type Build, useBuilds } from '../../../api/builds';
import { useGameContext } from '../../../components/GameLayout';

/** How many of the newest builds the picker offers: the Builds page pages through the rest. */
const PICKER_BUILDS = '50';

/** A build as the picker names it: its name, its tags and when it was uploaded. */
function buildLabel(build: Build): string {
  const tags = Object.entries(build.tags)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  const when = new Date(build.created_at).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  return [build.name, tags, when].filter((part) => part !== '').join(' · ');
}

/**
 * The game's newest builds (those of its first namespace, where builds are uploaded), to put one's id at
 * the config's image_id without copying it from the Builds page.
 */
export function BuildPicker({ onPick }: { onPick(buildId: string): void }) {
  const { gameId, game } = useGameContext();
  const namespaceId = game.namespaces[0]?.namespace_id;
  const builds = useBuilds(namespaceId === undefined ? undefined : { gameId, environmentId: namespaceId }, {
    tags: {},
    cursor: undefined,
    limit: PICKER_BUILDS,
  });
  // The select always shows its prompt: choosing is an action, not a setting it keeps.
  const [chosen, setChosen] = useState('');
  const list = builds.data?.builds ?? [];
  return (
    <div className="build-picker">
      <label>
        Insert a build
        <select
          value={chosen}
          disabled={list.length === 0}
          aria-describedby="build-picker-help"
          onChange={(event) => {
            const id = event.target.value;
            setChosen('');
            if (id !== '') onPick(id);
          }}
        >
          <option value="">
            {builds.isPending && namespaceId !== undefined
              ? 'Loading builds…'
              : list.length === 0
                ? 'No builds yet'
                : 'Choose a build…'}
          </option>
          {list.map((build) => (
            <option key={build.id} value={build.id}>
              {buildLabel(build)}
            </option>
          ))}
        </select>
      </label>
      <p id="build-picker-help" className="fine field-help">
        Its id goes to the <span className="mono">image_id</span> on the cursor's line (else the first one,
        else at the cursor).
      </p>
    </div>
  );
}
