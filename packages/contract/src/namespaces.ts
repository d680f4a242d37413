import { type Static, Type } from 'typebox';
import { DisplayNameText, Id, IdOf, MultilineText, Text, Timestamp, U32 } from './common.js';
import { NamespaceSummary } from './games.js';
import { NextCursor } from './paging.js';

export const NamespaceParams = Type.Object({ game_id: Id, namespace_id: Id });
export const CdnAuthUserParams = Type.Object({ game_id: Id, namespace_id: Id, user: Text(256) });

export const CreateNamespaceBody = Type.Object({
  name_id: Text(64, { description: '1-16 of a-z, 0-9 and -, unique within the game' }),
  display_name: DisplayNameText('1-24 bytes'),
  version_id: IdOf('a version of this game'),
});

export const SetNamespaceVersionBody = Type.Object({ version_id: Id });

export const MatchmakerConfigBody = Type.Object({
  lobby_count_max: U32,
  max_players: U32,
});

export const CdnAuthUserBody = Type.Object({
  // The CDN user rules report white space in either as their own codes, so the schema leaves TAB and LF to
  // them (other control characters are refused with every body).
  user: MultilineText(256, {
    description: 'user name, 1-64 bytes, no white space, control characters or colon',
  }),
  password: MultilineText(256, { description: 'bcrypt hash of the password; stored, never returned' }),
});

export const CdnAuthTypeBody = Type.Object({
  auth_type: Type.Union([Type.Literal('none'), Type.Literal('basic')]),
});

export const DomainPublicAuthBody = Type.Object({ enabled: Type.Boolean() });

const CdnDomain = Type.Object({
  domain: Type.String(),
  create_ts: Timestamp,
  verification_errors: Type.Array(Type.String()),
  verification_method: Type.Object({
    http: Type.Optional(Type.Object({})),
    cname_record: Type.Optional(Type.String()),
    invalid: Type.Optional(Type.Object({})),
  }),
  verification_status: Type.String(),
});

export const NamespaceFull = Type.Object({
  namespace_id: Id,
  version_id: Id,
  name_id: Type.String(),
  display_name: Type.String(),
  create_ts: Timestamp,
  config: Type.Object({
    cdn: Type.Object({
      auth_type: Type.String({ description: '"none" or "basic"' }),
      auth_user_list: Type.Array(Type.Object({ user: Type.String() })),
      domains: Type.Array(CdnDomain),
      enable_domain_public_auth: Type.Boolean(),
    }),
    identity: Type.Object({}),
    kv: Type.Object({}),
    matchmaker: Type.Object({
      lobby_count_max: U32,
      max_players_per_client: U32,
      max_players_per_client_hosting: U32,
      max_players_per_client_proxy: U32,
      max_players_per_client_tor: U32,
      max_players_per_client_vpn: U32,
    }),
  }),
});

/** `GET /cloud/games/{game_id}/namespaces` (query: PageQuery): oldest first, as the game's `namespaces`. */
export const NamespaceList = Type.Object({
  namespaces: Type.Array(NamespaceSummary),
  cursor: NextCursor,
});

export type NamespaceParams = Static<typeof NamespaceParams>;
export type CdnAuthUserParams = Static<typeof CdnAuthUserParams>;
export type CreateNamespaceBody = Static<typeof CreateNamespaceBody>;
export type SetNamespaceVersionBody = Static<typeof SetNamespaceVersionBody>;
export type MatchmakerConfigBody = Static<typeof MatchmakerConfigBody>;
export type CdnAuthUserBody = Static<typeof CdnAuthUserBody>;
export type CdnAuthTypeBody = Static<typeof CdnAuthTypeBody>;
export type DomainPublicAuthBody = Static<typeof DomainPublicAuthBody>;
export type NamespaceFull = Static<typeof NamespaceFull>;
export type NamespaceList = Static<typeof NamespaceList>;

export const CreateNamespaceResponse = Type.Object({ namespace_id: Id });
export type CreateNamespaceResponse = Static<typeof CreateNamespaceResponse>;

export const GetNamespaceResponse = Type.Object({ namespace: NamespaceFull });
export type GetNamespaceResponse = Static<typeof GetNamespaceResponse>;
