import { roleCovers } from '@gcm/contract/roles';
import type { components } from '@gcm/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, toApiError } from './client';
import { keys, useInspect, useTeamRole } from './queries';

export type VersionFull = components['schemas']['VersionFull'];
export type VersionBody = components['schemas']['VersionBody'];
export type ValidationProblem = components['schemas']['ValidationError'];
export type CreateNamespaceBody = components['schemas']['CreateNamespaceBody'];

/** A refusal that names each rule broken (`VALIDATION_ERROR` with `metadata.errors`), so a form can show each at its field. */
export class ValidationRefusal extends ApiError {
  constructor(
    base: ApiError,
    readonly errors: ValidationProblem[],
  ) {
    super(base.status, base.code, base.message, base.rayId);
    this.name = 'ValidationRefusal';
  }
}

function isProblem(value: unknown): value is ValidationProblem {
  const item = value as Partial<ValidationProblem> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    Array.isArray(item.path) &&
    item.path.every((segment) => typeof segment === 'string') &&
    typeof item.message === 'string'
  );
}

/** Like `unwrap`, but a refusal listing the rules broken is thrown as a `ValidationRefusal`. */
async function unwrapListing<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await pending;
  if (error === undefined && response.ok) return data as T;
  const refusal = toApiError(response, error);
  const listed = (error as { metadata?: { errors?: unknown } } | undefined)?.metadata?.errors;
  if (Array.isArray(listed) && listed.length > 0 && listed.every(isProblem)) {
    throw new ValidationRefusal(refusal, listed);
  }
  throw refusal;
}

/** Versions never change once made: one read each is enough. */
export function useVersion(gameId: string, versionId: string | undefined) {
  return useQuery({
    queryKey: ['versions', gameId, versionId],
    queryFn: () =>
      unwrapListing(
        api.GET('/cloud/games/{game_id}/versions/{version_id}', {
          params: { path: { game_id: gameId, version_id: versionId ?? '' } },
        }),
      ),
    enabled: versionId !== undefined && versionId !== '',
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The regions the operator offers, for validating a config's region names as it is typed. */
export function useRegions() {
  return useQuery({
    queryKey: ['regions'],
    queryFn: () => unwrapListing(api.GET('/cloud/regions')),
    staleTime: 5 * 60_000,
  });
}

/** Whether the signed-in person may change versions and namespaces here: a member or above of the team. */
export function useCanWrite(teamId: string): { pending: boolean; allowed: boolean } {
  const inspect = useInspect(true);
  const role = useTeamRole(teamId);
  return { pending: inspect.isPending, allowed: roleCovers(role, 'member') };
}

/** Writes that change what the game frame shows refresh the game. */
function useGameWrite<Input, Output>(gameId: string, write: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.game(gameId) }),
  });
}

export function useCreateVersion(gameId: string) {
  return useGameWrite(gameId, (body: VersionBody) =>
    unwrapListing(
      api.POST('/cloud/games/{game_id}/versions', { params: { path: { game_id: gameId } }, body }),
    ),
  );
}

export function useCreateNamespace(gameId: string) {
  return useGameWrite(gameId, (body: CreateNamespaceBody) =>
    unwrapListing(
      api.POST('/cloud/games/{game_id}/namespaces', { params: { path: { game_id: gameId } }, body }),
    ),
  );
}

/** Points a namespace at a version (PUT .../namespaces/{id}/version; no content). */
export function useRunVersion(gameId: string) {
  return useGameWrite(gameId, ({ namespaceId, versionId }: { namespaceId: string; versionId: string }) =>
    unwrapListing(
      api.PUT('/cloud/games/{game_id}/namespaces/{namespace_id}/version', {
        params: { path: { game_id: gameId, namespace_id: namespaceId } },
        body: { version_id: versionId },
      }),
    ),
  );
}
