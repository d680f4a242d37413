import {
  CdnAuthTypeBody,
  CdnAuthUserBody,
  CompleteSetupBody,
  CreateGameBody,
  CreateLobbyBody,
  CreateNamespaceBody,
  CreateTeamBody,
  CreateWebhookBody,
  LobbyEventBody,
  MatchmakerConfigBody,
  PatchTagsBody,
  PrepareAvatarBody,
  PrepareBuildBody,
  SetGameTeamBody,
  UpdatePlanBody,
  UpdateWebhookBody,
  ValidateGameBody,
  VersionBody,
} from '@gcm/contract';
import type { Static, TSchema } from 'typebox';

/**
 * Examples of request bodies for the OpenAPI document, typed by their schema. A body not listed here
 * still gets one, made from its schema (openapi.ts `exampleOf`); list it when that one says too little.
 * The lint test checks every example against its schema.
 */

/** A UUIDv7, as every id the service makes is. */
export const EXAMPLE_ID = '0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f';

function examples<T extends TSchema>(schema: T, ...values: Static<T>[]): [object, readonly unknown[]] {
  return [schema, values];
}

const game = { name_id: 'my-game', display_name: 'My Game' };

export const BODY_EXAMPLES: ReadonlyMap<object, readonly unknown[]> = new Map([
  examples(ValidateGameBody, game),
  examples(CreateGameBody, game, { ...game, team_id: EXAMPLE_ID }),
  examples(CreateTeamBody, {
    name: 'Acme Games',
    slug: 'acme',
    owner_email: 'lead@acme.example',
    owner_name: 'Lee Lead',
  }),
  examples(SetGameTeamBody, { team_id: EXAMPLE_ID }),
  examples(CreateWebhookBody, {
    url: 'https://hooks.example.com/gcm',
    events: ['lobby.stopped', 'build.completed'],
    description: 'CI dashboard',
  }),
  examples(UpdateWebhookBody, { enabled: false }, { events: ['lobby.created', 'lobby.stopped'] }),
  examples(CreateNamespaceBody, { name_id: 'prod', display_name: 'Production', version_id: EXAMPLE_ID }),
  examples(VersionBody, {
    display_name: 'v1.0.0',
    config: {
      matchmaker: {
        game_modes: {
          default: {
            max_players: 8,
            container: { image_id: EXAMPLE_ID, ports: { game: { port: 7777, protocol: 'udp' } } },
          },
        },
      },
    },
  }),
  examples(MatchmakerConfigBody, { lobby_count_max: 100, max_players: 8 }),
  examples(CdnAuthUserBody, {
    user: 'tester',
    password: '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
  }),
  examples(CdnAuthTypeBody, { auth_type: 'basic' }),
  examples(PrepareBuildBody, {
    name: 'server 1.0.0',
    image_file: { path: 'server.tar', content_type: 'application/x-tar', content_length: 73_400_320 },
    tags: { channel: 'beta' },
  }),
  examples(PatchTagsBody, { tags: { current: 'true' }, exclusive_tags: ['current'] }),
  examples(PrepareAvatarBody, { path: 'avatar.png', mime: 'image/png', content_length: 48_213 }),
  examples(CreateLobbyBody, { lobby_group_name_id: 'default', region_id: 'lnd-atl' }),
  examples(LobbyEventBody, { kind: 'start' }, { kind: 'ready' }, { kind: 'stop', exit_code: 0 }),
  examples(UpdatePlanBody, { plan: 'indie' }),
  examples(CompleteSetupBody, {
    secret: 'Xq3v9mK2pL7wR1tY5uI8oP4aS6dF0gH2jK4lZ7xC9vB',
    team_name: 'Acme Games',
    team_slug: 'acme-games',
    name: 'Nina Lead',
    email: 'lead@acme.example',
    password: 'correct horse battery staple',
  }),
]);
