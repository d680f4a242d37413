import type { ColumnType, Generated } from 'kysely';

/**
 * Table types as the database holds them: text ids, integer epoch-millisecond timestamps, 0/1 booleans and
 * JSON as text, so the same rows work on SQLite and PostgreSQL. Rows are never API shapes; services map them.
 */
export interface SigningKeysTable {
  key_id: string;
  algorithm: string;
  public_jwk: string;
  private_jwk: string;
  create_ts: number;
}

export interface OperatorTokensTable {
  token_id: string;
  token_sha256: string;
  create_ts: number;
}

export interface GamesTable {
  game_id: string;
  name_id: string;
  display_name: string;
  create_ts: number;
  avatar_url: string | null;
  host_networking_enabled: number;
  /** When the game was retired (DELETE /cloud/games/{id}); null while it lives. */
  delete_ts: number | null;
  /** When the purge of a retired game's lobbies, builds and uploads finished; null until then. */
  purge_ts: number | null;
  /** The team that owns the game; null for a game only the operator manages (made before teams). */
  team_id: string | null;
}

export interface VersionsTable {
  version_id: string;
  game_id: string;
  display_name: string;
  config_json: string;
  create_ts: number;
}

export interface NamespacesTable {
  namespace_id: string;
  game_id: string;
  version_id: string;
  name_id: string;
  display_name: string;
  create_ts: number;
  update_ts: number;
  cdn_auth_type: string;
  cdn_enable_domain_public_auth: number;
  mm_lobby_count_max: number;
  mm_max_players_per_client: number;
  mm_max_players_per_client_hosting: number;
  mm_max_players_per_client_proxy: number;
  mm_max_players_per_client_tor: number;
  mm_max_players_per_client_vpn: number;
  /** When the namespace was deleted (itself or with its game); null while it lives. Its name_id is freed then. */
  delete_ts: number | null;
  /** When the purge of a deleted namespace's lobbies and builds finished; null until then. */
  purge_ts: number | null;
  /** The version it ran before version_id (0035); null until its version is first switched. */
  previous_version_id: string | null;
}

export interface NamespaceCdnAuthUsersTable {
  namespace_id: string;
  user_name: string;
  password_hash: string;
  create_ts: number;
}

export interface TokensTable {
  token_id: string;
  kind: string;
  game_id: string;
  namespace_id: string | null;
  create_ts: number;
  expire_ts: number;
  revoke_ts: number | null;
  /** When a request last authenticated with it, recorded at most once a minute; null if never (or before 0013). */
  last_used_ts: number | null;
  /** The person it was minted for (device link, or a signed-in admin's mint); null otherwise (migration 0020). */
  user_id: string | null;
  /** A development token's host and ports, `{hostname, ports}` as JSON; null for other kinds (0026). */
  development_json: string | null;
}

/** A lobby's resource use at `ts` (0031): the history's rows and, one per lobby, the latest sample. */
export interface LobbyResourceSamplesTable {
  namespace_id: string;
  lobby_id: string;
  ts: number;
  cpu_millicores: number;
  memory_bytes: number;
  memory_limit_bytes: number;
  rx_bytes: number;
  tx_bytes: number;
}

export interface LobbiesTable {
  lobby_id: string;
  namespace_id: string;
  lobby_group_name_id: string;
  region_id: string;
  create_ts: number;
  start_ts: number | null;
  ready_ts: number | null;
  stop_ts: number | null;
  exit_code: number | null;
  failed: number | null;
  /** The runtime's columns (0024); all null for a lobby an external data plane reports. */
  run_state: 'starting' | 'ready' | 'stopping' | 'stopped' | null;
  version_id: string | null;
  is_closed: number | null;
  player_count: number | null;
  max_players: number | null;
  token_hash: string | null;
  runtime_host: string | null;
  runtime_handle: string | null;
  /** Where players reach it when the orchestrator chose its machine (swarm); null: the region's host (0033). */
  public_host: string | null;
  /** JSON array of {name, protocol, port, port_end?}. */
  ports: string | null;
  ready_deadline_ts: number | null;
  stop_requested_ts: number | null;
  stop_reason: string | null;
  /** When the reconciler first found it busy on a version its namespace no longer runs (0025). */
  drain_started_ts: number | null;
  /** The matchmaker's columns (0027): null publicity = a lobby the reconciler started for find. */
  publicity: 'public' | 'private' | null;
  tags_json: string | null;
  lobby_config_json: string | null;
  state_json: string | null;
  max_players_direct: number | null;
  max_players_party: number | null;
}

export interface LobbyPlayersTable {
  namespace_id: string;
  lobby_id: string;
  player_token_hash: string;
  /** 'pending': issued by find/join/create, slot held until connect_deadline_ts; 'connected': admitted. */
  state: 'pending' | 'connected';
  join_kind: 'normal' | 'direct' | 'party';
  issued_ts: number;
  connect_deadline_ts: number | null;
  connected_ts: number | null;
  client_addr: string | null;
}

export interface RuntimeImagesTable {
  host_id: string;
  build_id: string;
  image: string;
  loaded_ts: number;
}

export interface UploadSigningSecretsTable {
  secret_id: string;
  /** base64url of 32 random bytes: the HMAC key of the embedded store's PUT URLs. */
  secret: string;
  create_ts: number;
}

export interface UploadsTable {
  upload_id: string;
  game_id: string;
  /** 'avatar' (or 'build'): what completing the upload does. */
  kind: string;
  object_key: string;
  /** The file name the client gave, returned in every presigned request. */
  path: string;
  mime: string;
  content_length: number;
  part_count: number;
  part_size: number;
  /** The store's multipart upload id; null for a single PUT. */
  multipart_id: string | null;
  create_ts: number;
  /** When the presigned URLs expire. */
  expire_ts: number;
  complete_ts: number | null;
  /** 'pending' until complete succeeds, then 'complete'; 'abandoned' once the clean-up claims it for deletion. */
  state: string;
  /**
   * Set by complete: the key of the checked file, the only one read afterwards (a single PUT's frozen copy,
   * a multipart upload's joined object). Null while pending, and on uploads completed before migration 0012.
   */
  frozen_key: string | null;
}

export interface BuildsTable {
  build_id: string;
  game_id: string;
  namespace_id: string;
  name: string;
  upload_id: string;
  content_length: number;
  create_ts: number;
  complete_ts: number | null;
  /**
   * The build's tags as one JSON object, keys in byte order: a copy of its build_tags rows that triggers
   * keep (0017), so the service reads it and never writes it.
   */
  tags_json: ColumnType<string, never, never>;
  /** Lower-case hex sha256 of the stored archive, recorded after completion (0025); null until hashed. */
  archive_sha256: string | null;
}

export interface BuildTagsTable {
  build_id: string;
  tag_key: string;
  tag_value: string;
  /** The build's, copied so the tag filter reads one index in list order (0016); null only before it. */
  namespace_id: string;
  /** The build's create_ts, copied for the same reason. */
  create_ts: number;
}

export interface GameBillingTable {
  game_id: string;
  /** The plan chosen going forward: 'trial', 'indie' or 'studio'. */
  plan: string;
  /** The plan in force now; differs from `plan` while a downgrade waits for the period's end. */
  active_plan: string;
  period_start_ts: number | null;
  period_end_ts: number | null;
  /** The watch index; bumped by every change. */
  version: number;
  update_ts: number;
}

export interface DeviceLinksTable {
  link_id: string;
  create_ts: number;
  /** One hour after create_ts, on a whole second (the link token's `exp`); deleted after it. */
  expire_ts: number;
  /** Null until completed. */
  game_id: string | null;
  /** The minted cloud token's row, never its text; null until completed. */
  token_id: string | null;
  complete_ts: number | null;
  /** The watch index; bumped by every change. */
  version: number;
  /** Who started the link (shown on its page; pending links are capped per address); null before 0011. */
  client_address: string | null;
  /** The starting request's User-Agent, bounded and without control characters; null when it sent none. */
  user_agent: string | null;
  /** The confirmation code the tool prints and the page shows (XXXX-XXXX); null before 0011. */
  user_code: string | null;
}

export interface RateLimitWindowsTable {
  /** `<limit name>:<normalised client address>`. */
  bucket_key: string;
  hits: number;
  /** Epoch ms at which this window ends (and the next hit starts a new one). */
  reset_ts: number;
}

export interface JobLeasesTable {
  job_name: string;
  /** The instance running the job (a random id per process). */
  holder: string;
  /** Epoch ms (wall clock) after which another instance may take the job over. */
  expire_ts: number;
}

export interface IdempotencyKeysTable {
  /** Whose key: `operator`, `game:<game_id>` or `reporter:<game_id>:<namespace_id>`. */
  scope: string;
  /** The client's Idempotency-Key, as sent. */
  idem_key: string;
  /** Method and route pattern of the request that first used the key. */
  route: string;
  /** SHA-256 (hex) of that request's path parameters, query and body, in canonical JSON. */
  request_sha256: string;
  /** The instance request that runs the operation; null once its answer is stored. */
  claim_id: string | null;
  /** Epoch ms after which a claim whose request never answered may be taken over; null with the answer. */
  claim_expire_ts: number | null;
  /** The stored answer's status; null while claimed. */
  status_code: number | null;
  /** The stored answer's JSON body, its secrets left out (see http/idempotency.ts); null while claimed. */
  answer: string | null;
  create_ts: number;
  /** create_ts + 24 h: after it the key is free again, and the clean-up deletes the row. */
  expire_ts: number;
}

/** better-auth's dates: timestamptz (a Date) on PostgreSQL, ISO-8601 text on SQLite. */
export type AuthDate = Date | string;

export interface AccountSecretsTable {
  secret_id: string;
  /** base64url of 32 random bytes: the key better-auth signs session cookies with. */
  secret: string;
  create_ts: number;
}

/** People (better-auth's `user`); written by better-auth, read by the service for names and emails. */
export interface UsersTable {
  id: string;
  name: string;
  email: string;
  email_verified: boolean | number;
  image: string | null;
  created_at: AuthDate;
  updated_at: AuthDate;
}

/** Sign-in sessions (better-auth's `session`); the cookie holds the signed `token`. */
export interface UserSessionsTable {
  id: string;
  user_id: string;
  token: string;
  expires_at: AuthDate;
  ip_address: string | null;
  user_agent: string | null;
  active_team_id: string | null;
  created_at: AuthDate;
  updated_at: AuthDate;
}

/** Teams (better-auth's `organization`). */
export interface TeamsTable {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  metadata: string | null;
  created_at: AuthDate;
}

/** Who is in which team, as what (better-auth's `member`): owner, admin, member or viewer. */
export interface TeamMembersTable {
  id: string;
  team_id: string;
  user_id: string;
  role: string;
  created_at: AuthDate;
}

export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  email: string;
  role: string | null;
  /** pending, accepted, rejected or canceled. */
  status: string;
  expires_at: AuthDate;
  inviter_id: string;
  created_at: AuthDate;
}

/** One write made through the API (migration 0019). */
export interface AuditEventsTable {
  event_id: string;
  ts: number;
  actor_kind: string;
  actor_token_id: string | null;
  actor_user_id: string | null;
  actor_email: string | null;
  /** The route's operationId, or `auth.<path>` for better-auth's team calls. */
  operation: string;
  method: string;
  path: string;
  game_id: string | null;
  team_id: string | null;
  /** JSON object: the ids the call named in its path and those its answer made. */
  resource: string;
  status: number;
  ray_id: string;
}

export interface WebhookEndpointsTable {
  webhook_id: string;
  game_id: string | null;
  team_id: string | null;
  url: string;
  description: string;
  /** JSON array of event types. */
  events: string;
  secret: string;
  enabled: number;
  create_ts: number;
  update_ts: number;
}

export interface WebhookDeliveriesTable {
  /** Database counter: orders one resource's deliveries to one endpoint. */
  seq: Generated<number>;
  delivery_id: string;
  webhook_id: string;
  game_id: string | null;
  team_id: string | null;
  event_id: string;
  event_type: string;
  resource_key: string;
  dedupe_key: string;
  payload: string;
  state: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  /** JSON array of attempts, oldest first. */
  attempts: string;
  next_attempt_ts: number;
  create_ts: number;
  delivered_ts: number | null;
}

/** The first-run setup link: one row at most (setup_id 'first-run'); see modules/first-run. */
export interface FirstRunSetupTable {
  setup_id: string;
  /** base64url of 32 random bytes; kept in the store so every instance shows the same link until used. */
  secret: string;
  create_ts: number;
  /** When the link was used (or retired because a team existed): null while it is open. */
  use_ts: number | null;
  /** The team the setup made; null for a link retired unused. */
  team_id: string | null;
}

export interface LobbyOutputStreamsTable {
  lobby_id: string;
  stream: 'std_out' | 'std_err';
  namespace_id: string;
  line_count: number;
  first_line: number;
  kept_bytes: number;
  dropped_bytes: number;
  last_ts: number;
  last_ts_lines: number;
  complete: number;
  update_ts: number;
}

export interface LobbyOutputChunksTable {
  lobby_id: string;
  /** Output is (namespace_id, lobby_id), as the lobby is (0034). */
  namespace_id: string;
  stream: 'std_out' | 'std_err';
  first_line: number;
  line_count: number;
  first_ts: number;
  last_ts: number;
  raw_bytes: number;
  blob_key: string;
  closed: number;
}

/** A file written for a download (0030): its blob is deleted a day after create_ts. */
export interface LobbyExportsTable {
  export_id: string;
  game_id: string;
  kind: 'lobby-history' | 'lobby-output';
  blob_key: string;
  create_ts: number;
}

export interface Database {
  signing_keys: SigningKeysTable;
  operator_tokens: OperatorTokensTable;
  games: GamesTable;
  versions: VersionsTable;
  namespaces: NamespacesTable;
  namespace_cdn_auth_users: NamespaceCdnAuthUsersTable;
  tokens: TokensTable;
  lobbies: LobbiesTable;
  lobby_players: LobbyPlayersTable;
  lobby_output_streams: LobbyOutputStreamsTable;
  lobby_output_chunks: LobbyOutputChunksTable;
  lobby_exports: LobbyExportsTable;
  runtime_images: RuntimeImagesTable;
  builds: BuildsTable;
  build_tags: BuildTagsTable;
  upload_signing_secrets: UploadSigningSecretsTable;
  uploads: UploadsTable;
  game_billing: GameBillingTable;
  device_links: DeviceLinksTable;
  job_leases: JobLeasesTable;
  rate_limit_windows: RateLimitWindowsTable;
  idempotency_keys: IdempotencyKeysTable;
  account_secrets: AccountSecretsTable;
  first_run_setup: FirstRunSetupTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  audit_events: AuditEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  lobby_resource_samples: LobbyResourceSamplesTable;
  lobby_resource_latest: LobbyResourceSamplesTable;
}
