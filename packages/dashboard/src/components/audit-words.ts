import type { AuditEvent } from '../api/people';

/**
 * An audit event as a sentence: "nina@studio.test created version v2". Each recorded write has its words
 * here; `{x_id}` stands for the resource the call named or made, written by its name where the page knows
 * it. An operation missing from this table (a new route) falls back to its operation id, never to nothing.
 */
interface Words {
  /** The verb as done ("created") and as tried ("create"), for a refused or failed call. */
  done: string;
  tried: string;
  /** What it was done to, with `{kind_id}` placeholders. */
  what: string;
}

const w = (done: string, tried: string, what: string): Words => ({ done, tried, what });

export const AUDIT_WORDS: Readonly<Record<string, Words>> = {
  'games.createGame': w('created', 'create', 'game {game_id}'),
  'games.updateGame': w('renamed', 'rename', 'game {game_id}'),
  'games.deleteGame': w('deleted', 'delete', 'game {game_id}'),
  'games.setGameHostNetworking': w('changed', 'change', 'host networking of game {game_id}'),
  'games.setGameTeam': w('moved', 'move', 'game {game_id} to another team'),
  'games.validateGame': w('checked', 'check', 'the names of a new game'),
  'games.billing.updatePlan': w('changed', 'change', 'the billing plan of game {game_id}'),
  'games.avatars.prepareCustomAvatarUpload': w('started', 'start', 'an avatar upload'),
  'games.avatars.completeCustomAvatarUpload': w('set', 'set', 'the avatar of game {game_id}'),
  'games.namespaces.createGameNamespace': w('created', 'create', 'namespace {namespace_id}'),
  'games.namespaces.deleteGameNamespace': w('deleted', 'delete', 'namespace {namespace_id}'),
  'games.namespaces.updateGameNamespaceVersion': w(
    'switched',
    'switch',
    'the version of namespace {namespace_id}',
  ),
  'games.namespaces.updateGameNamespaceMatchmakerConfig': w(
    'changed',
    'change',
    'the matchmaker settings of namespace {namespace_id}',
  ),
  'games.namespaces.updateNamespaceCdnAuthUser': w(
    'changed',
    'change',
    'a CDN user of namespace {namespace_id}',
  ),
  'games.namespaces.removeNamespaceCdnAuthUser': w(
    'removed',
    'remove',
    'a CDN user of namespace {namespace_id}',
  ),
  'games.namespaces.setNamespaceCdnAuthType': w(
    'changed',
    'change',
    'the CDN auth of namespace {namespace_id}',
  ),
  'games.namespaces.toggleNamespaceDomainPublicAuth': w(
    'changed',
    'change',
    'the public domain auth of namespace {namespace_id}',
  ),
  'games.namespaces.logs.createNamespaceLobby': w(
    'created',
    'create',
    'lobby {lobby_id} in namespace {namespace_id}',
  ),
  'games.namespaces.logs.recordNamespaceLobbyEvent': w('reported', 'report', 'an event of lobby {lobby_id}'),
  'games.namespaces.tokens.createReporterToken': w(
    'minted',
    'mint',
    'a reporter token for namespace {namespace_id}',
  ),
  'games.tokens.createCloudToken': w('minted', 'mint', 'a cloud token'),
  'tokens.revokeToken': w('revoked', 'revoke', 'token {token_id}'),
  'games.versions.createGameVersion': w('created', 'create', 'version {version_id}'),
  'games.versions.validateGameVersion': w('checked', 'check', 'a version config'),
  'builds.prepare': w('started', 'start', 'uploading build {build_id}'),
  'builds.complete': w('uploaded', 'upload', 'build {build_id}'),
  'builds.patchTags': w('changed', 'change', 'the tags of build {build_id}'),
  'uploads.putUploadPart': w('sent', 'send', 'a part of an upload'),
  'cloud.uploads.completeUpload': w('completed', 'complete', 'an upload'),
  'teams.createTeam': w('created', 'create', 'team {team_id}'),
  'devices.links.prepare': w('started', 'start', 'a device link'),
  'devices.links.complete': w('linked', 'link', 'a device'),
  'admin.createBackup': w('backed up', 'back up', 'the store'),
  // better-auth's team calls, recorded as auth.<path>.
  'auth.organization.create': w('created', 'create', 'team {team_id}'),
  'auth.organization.update': w('changed', 'change', 'the team'),
  'auth.organization.delete': w('deleted', 'delete', 'the team'),
  'auth.organization.invite-member': w('invited', 'invite', 'a member'),
  'auth.organization.cancel-invitation': w('cancelled', 'cancel', 'an invitation'),
  'auth.organization.accept-invitation': w('accepted', 'accept', 'an invitation'),
  'auth.organization.reject-invitation': w('declined', 'decline', 'an invitation'),
  'auth.organization.remove-member': w('removed', 'remove', 'a member'),
  'auth.organization.update-member-role': w('changed', 'change', 'the role of a member'),
  'auth.organization.leave': w('left', 'leave', 'the team'),
};

/** A piece of a sentence: plain words, or a resource by its kind and id. */
export type Part = { text: string } | { kind: string; id: string };

/** The sentence of an event after its actor, in parts the page renders (names and links for the ids). */
export function auditSentence(event: AuditEvent): Part[] {
  const words = AUDIT_WORDS[event.operation];
  const ok = event.outcome === 'succeeded';
  if (words === undefined) {
    return [{ text: ok ? `called ${event.operation}` : `tried to call ${event.operation}` }];
  }
  const parts: Part[] = [{ text: ok ? `${words.done} ` : `tried to ${words.tried} ` }];
  const ids: Record<string, string> = { ...event.resource };
  if (event.game_id !== undefined) ids.game_id ??= event.game_id;
  if (event.team_id !== undefined) ids.team_id ??= event.team_id;
  for (const piece of words.what.split(/(\{[a-z_]+\})/)) {
    if (piece === '') continue;
    const key = /^\{([a-z_]+)\}$/.exec(piece)?.[1];
    if (key === undefined) parts.push({ text: piece });
    else {
      const id = ids[key];
      // The call made nothing to name (refused before it did): the kind alone still reads.
      if (id === undefined) parts.push({ text: '(unknown)' });
      else parts.push({ kind: key.replace(/_id$/, ''), id });
    }
  }
  return parts;
}
