import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { VersionBody, VersionFull } from '../../../api/versions';
import { useCreateVersion, useRegions, ValidationRefusal } from '../../../api/versions';
import { useGameContext } from '../../../components/GameLayout';
import { ErrorMessage } from '../../../components/status';
import { BuildPicker } from './BuildPicker';
import { ConfigEditor, type ConfigEditorHandle, ProblemList } from './ConfigEditor';
import { type Checked, checkVersion, type GameFacts, type Problem } from './check';
import { STARTER_CONFIG, toYaml } from './yaml';

/** How long typing may pause before the config is checked again. */
const CHECK_DELAY_MS = 150;

/**
 * The new version's name and config, checked as they are typed with the contract's validator; created
 * when valid. `startConfig` is the config of the version it starts from, if any.
 */
export function VersionForm({ startConfig }: { startConfig?: VersionFull['config'] | undefined }) {
  const initialConfig = useMemo(
    () => (startConfig === undefined ? STARTER_CONFIG : toYaml(startConfig)),
    [startConfig],
  );
  const { teamId, gameId, game } = useGameContext();
  const navigate = useNavigate();
  const regions = useRegions();
  const create = useCreateVersion(gameId);
  const editor = useRef<ConfigEditorHandle>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [text, setText] = useState(initialConfig);
  // The service's answer belongs to what was sent: it goes as soon as either field changes.
  const [answered, setAnswered] = useState<Problem[]>([]);

  const facts = useMemo<GameFacts>(
    () => ({
      regions: regions.data?.regions.map((r) => r.name_id),
      existingDisplayNames: game.versions.map((v) => v.display_name),
      hostNetworkingEnabled: game.host_networking_enabled,
    }),
    [regions.data, game],
  );
  const [checked, setChecked] = useState<Checked>(() => checkVersion(initialConfig, name, facts));
  useEffect(() => {
    const timer = setTimeout(() => setChecked(checkVersion(text, name, facts)), CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, name, facts]);

  const problems = [...checked.problems, ...answered];
  const nameProblems = problems.filter((p) => p.field === 'display_name');
  const configProblems = problems.filter((p) => p.field === 'config');
  const showName = nameTouched || answered.length > 0;
  const blocking = checked.problems.length > 0;

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setNameTouched(true);
    // What is sent is what is on screen now, checked now (typing may be ahead of the last check).
    const now = checkVersion(text, name, facts);
    setChecked(now);
    if (now.problems.length > 0) return;
    const body = { display_name: name, config: now.value as VersionBody['config'] };
    create.mutate(body, {
      onSuccess: (made) => navigate(`/teams/${teamId}/games/${gameId}/versions/${made.version_id}`),
      onError: (error) => {
        if (error instanceof ValidationRefusal) setAnswered(now.place(error.errors, 'service'));
      },
    });
  };
  const jump = (problem: Problem) => {
    if (problem.field === 'display_name') nameInput.current?.focus();
    else editor.current?.jumpTo(problem);
  };
  const edited = () => {
    setAnswered([]);
    create.reset();
  };

  const status =
    configProblems.length > 0
      ? `${configProblems.length} ${configProblems.length === 1 ? 'problem' : 'problems'} in the config`
      : 'The config is valid';
  return (
    <form className="stack version-form" onSubmit={submit} noValidate>
      <label>
        Version name
        <input
          ref={nameInput}
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            edited();
          }}
          onBlur={() => setNameTouched(true)}
          autoComplete="off"
          aria-invalid={showName && nameProblems.length > 0}
          aria-describedby="version-name-help version-name-problems"
        />
      </label>
      <p id="version-name-help" className="fine field-help">
        Unique within the game, such as <span className="mono">v1.2.0</span>; at most 128 bytes.
      </p>
      <ProblemList id="version-name-problems" problems={showName ? nameProblems : []} onJump={jump} />

      <div className="editor-head">
        <span id="version-config-label" className="editor-label">
          Configuration (YAML)
        </span>
        <p className={`editor-status ${configProblems.length > 0 ? 'bad' : 'good'}`} role="status">
          <span aria-hidden="true">{configProblems.length > 0 ? '✗ ' : '✓ '}</span>
          {status}
        </p>
      </div>
      <p id="version-config-help" className="fine field-help">
        Checked as you type with the service's own rules; the service also checks that each{' '}
        <span className="mono">image_id</span> is a build of this game when you create the version.
      </p>
      <BuildPicker onPick={(buildId) => editor.current?.insertImageId(buildId)} />
      <ConfigEditor
        ref={editor}
        id="version-config"
        labelledBy="version-config-label"
        value={text}
        onChange={(value) => {
          setText(value);
          edited();
        }}
        problems={configProblems}
        describedBy="version-config-help version-config-problems"
      />
      <ProblemList id="version-config-problems" problems={configProblems} onJump={jump} />

      {create.isError &&
        (create.error instanceof ValidationRefusal ? (
          // Each refusal is in the list above, at its line: said once there, not again here.
          <div className="notice error" role="alert">
            <strong>Could not create the version</strong>
            <p>
              The service found {answered.length === 1 ? 'a problem' : `${answered.length} problems`} the page
              could not check by itself, marked in the config above.
            </p>
          </div>
        ) : (
          <ErrorMessage error={create.error} title="Could not create the version" />
        ))}
      <div className="actions">
        <button type="submit" disabled={blocking || create.isPending}>
          {create.isPending ? 'Creating…' : 'Create version'}
        </button>
        <Link to={`/teams/${teamId}/games/${gameId}`}>Cancel</Link>
        {!showName && nameProblems.length > 0 && <p className="fine">Name the version to create it.</p>}
      </div>
    </form>
  );
}
