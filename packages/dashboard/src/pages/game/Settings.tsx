import { roleCovers } from '@gcm/contract/roles';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { keys, useTeamRole } from '../../api/queries';
import { LIMITS } from '../../api/start';
import { avatarProblem, uploadAvatar } from '../../api/uploads';
import { DropZone, UploadProgress } from '../../components/DropZone';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, ErrorMessage, When } from '../../components/status';
import './settings.css';

/** `/teams/:teamId/games/:gameId/settings`: the game's names and ids, and its avatar. */
export function GameSettingsPage() {
  useTitle('Settings');
  const { teamId, game } = useGameContext();
  const role = useTeamRole(teamId);
  const canWrite = roleCovers(role, 'member');

  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="game-identity">
        <h2 id="game-identity">Game</h2>
        <dl className="facts">
          <div>
            <dt>Display name</dt>
            <dd>{game.display_name}</dd>
          </div>
          <div>
            <dt>Name id</dt>
            <dd className="mono">{game.name_id}</dd>
          </div>
          <div>
            <dt>Game id</dt>
            <dd className="mono">{game.game_id}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <When ts={game.create_ts} />
            </dd>
          </div>
        </dl>
        {canWrite && <RenameGame gameId={game.game_id} current={game.display_name} />}
      </section>

      <section aria-labelledby="game-avatar">
        <h2 id="game-avatar">Avatar</h2>
        <div className="avatar-current">
          {game.avatar_url === undefined ? (
            <Empty>
              <p>No avatar yet.</p>
            </Empty>
          ) : (
            <img
              className="avatar"
              src={game.avatar_url}
              alt={`Avatar of ${game.display_name}`}
              width={128}
              height={128}
            />
          )}
        </div>
        {canWrite ? (
          <AvatarUpload gameId={game.game_id} />
        ) : (
          role !== undefined && <p className="fine">Viewers cannot change the avatar.</p>
        )}
      </section>
    </>
  );
}

/** The game's display name, changed in place; its name id stays, as URLs and the CLI use it. */
function RenameGame({ gameId, current }: { gameId: string; current: string }) {
  const client = useQueryClient();
  const [name, setName] = useState(current);
  const [done, setDone] = useState<string>();
  const rename = useMutation({
    mutationFn: (displayName: string) =>
      unwrap(
        api.PATCH('/cloud/games/{game_id}', {
          params: { path: { game_id: gameId } },
          body: { display_name: displayName },
        }),
      ),
    onSuccess: async (_, displayName) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: keys.game(gameId) }),
        client.invalidateQueries({ queryKey: keys.games }),
      ]);
      setDone(`Renamed to ${displayName}.`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    rename.mutate(name.trim());
  };
  return (
    <form className="stack rename-game" onSubmit={submit} aria-labelledby="rename-game-heading">
      <h3 id="rename-game-heading">Rename the game</h3>
      <label>
        New display name
        <input
          required
          maxLength={LIMITS.gameDisplayName}
          value={name}
          autoComplete="off"
          onChange={(event) => setName(event.target.value)}
          aria-describedby="rename-game-hint"
        />
      </label>
      <p id="rename-game-hint" className="fine">
        At most {LIMITS.gameDisplayName} bytes. The name id stays: links and the CLI keep working.
      </p>
      {rename.isError && <ErrorMessage error={rename.error} title="Could not rename the game" />}
      <div className="actions">
        <button type="submit" disabled={rename.isPending || name.trim() === '' || name.trim() === current}>
          {rename.isPending ? 'Saving…' : 'Save name'}
        </button>
        <p role="status" className="done">
          {done}
        </p>
      </div>
    </form>
  );
}

function AvatarUpload({ gameId }: { gameId: string }) {
  const client = useQueryClient();
  const [file, setFile] = useState<File>();
  const [problem, setProblem] = useState<string>();
  const [preview, setPreview] = useState<string>();
  const [sent, setSent] = useState(0);
  const [done, setDone] = useState(false);
  const upload = useMutation({
    mutationFn: (chosen: File) => uploadAvatar(gameId, chosen, setSent),
    // The game's answer carries the new avatar_url: the frame and every page of the game show it.
    onSuccess: () => client.invalidateQueries({ queryKey: keys.game(gameId) }),
  });

  // An object URL holds the file in memory until revoked: one per chosen file, freed when it changes.
  useEffect(() => {
    if (file === undefined) {
      setPreview(undefined);
      return;
    }
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const choose = (chosen: File) => {
    upload.reset();
    setDone(false);
    setSent(0);
    const why = avatarProblem(chosen);
    setProblem(why);
    setFile(why === undefined ? chosen : undefined);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file === undefined) {
      setProblem('Choose a PNG or JPEG image first.');
      return;
    }
    upload.mutate(file, {
      onSuccess: () => {
        setDone(true);
        setFile(undefined);
      },
    });
  };

  return (
    <form className="stack avatar-form" onSubmit={submit} noValidate>
      <DropZone
        label="Choose an image"
        hint="Drop a PNG or JPEG image (under 2,000,000 bytes) here, or"
        accept="image/png,image/jpeg"
        file={file}
        disabled={upload.isPending}
        onFile={choose}
      />
      {problem !== undefined && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      {preview !== undefined && file !== undefined && (
        <figure className="avatar-preview">
          <img className="avatar" src={preview} alt="Preview of the new avatar" width={128} height={128} />
          <figcaption className="fine">Preview: not uploaded yet.</figcaption>
        </figure>
      )}
      {upload.isPending && file !== undefined && (
        <UploadProgress label={`Uploading ${file.name}`} sent={sent} total={file.size} />
      )}
      {upload.isError && <ErrorMessage error={upload.error} title="Could not upload the avatar" />}
      {done && (
        <p className="notice success" role="status">
          The avatar is updated.
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={upload.isPending || file === undefined}>
          {upload.isPending ? 'Uploading…' : 'Upload avatar'}
        </button>
      </div>
    </form>
  );
}
