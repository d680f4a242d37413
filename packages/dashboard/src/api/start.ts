import type { components } from '@gcm/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createTeam } from './auth';
import { ApiError, api, unwrap } from './client';
import { keys } from './queries';

type CreateGameBody = components['schemas']['CreateGameBody'];

/**
 * Limits of the README's "People and teams" and of a game's names (the contract's names.ts), repeated here
 * because the bundle does not take the contract package in; the service checks them all the same.
 */
export const LIMITS = { teamName: 100, teamSlug: 48, gameDisplayName: 24, gameNameId: 16 } as const;

/** The fields of the two forms, and where a refusal of the service belongs. */
export type Field = 'name' | 'id';

/** The one slug rule of teams, games and namespaces, cut at a word boundary. */
export { proposeId } from '@gcm/contract/format';

/** better-auth's codes (metadata.auth_code) that are about a team's slug or its name. */
const TEAM_FIELD_CODES: Readonly<Record<string, Field>> = {
  INVALID_SLUG: 'id',
  ORGANIZATION_ALREADY_EXISTS: 'id',
  ORGANIZATION_SLUG_ALREADY_TAKEN: 'id',
  NAME_TOO_LONG: 'name',
};

/** The field a refusal to make a team is about, when it names one. */
export function teamErrorField(error: unknown): Field | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const code = error.metadata.auth_code;
  if (typeof code === 'string' && TEAM_FIELD_CODES[code] !== undefined) return TEAM_FIELD_CODES[code];
  if (error.metadata.field === 'slug') return 'id';
  if (error.metadata.field === 'name') return 'name';
  return undefined;
}

/**
 * A refusal to make a game, split by field: VALIDATION_ERROR lists its items in metadata.errors, each with a
 * path whose first part is `display-name` or `name-id`. What names no field is left for the form's notice.
 */
export function gameErrorFields(error: unknown): Partial<Record<Field, string>> {
  if (!(error instanceof ApiError) || !Array.isArray(error.metadata.errors)) return {};
  const out: Partial<Record<Field, string>> = {};
  for (const item of error.metadata.errors as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { path, message } = item as { path?: unknown; message?: unknown };
    if (!Array.isArray(path) || typeof message !== 'string') continue;
    const field: Field | undefined =
      path[0] === 'name-id' ? 'id' : path[0] === 'display-name' ? 'name' : undefined;
    if (field !== undefined) out[field] = out[field] === undefined ? message : `${out[field]}; ${message}`;
  }
  return out;
}

/** Makes a team; the switcher and Home learn of it at once. */
export function useCreateTeam() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, slug }: { name: string; slug: string }) => createTeam(name, slug),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.inspect }),
        queryClient.invalidateQueries({ queryKey: keys.teams }),
      ]);
    },
  });
}

/** Makes a game in a team (admin or owner there); the team's list learns of it at once. */
export function useCreateGame() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateGameBody & { team_id: string }) => unwrap(api.POST('/cloud/games', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.games }),
  });
}
