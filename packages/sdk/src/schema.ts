/**
 * The service's HTTP API as types, generated from its OpenAPI document by packages/sdk/scripts/generate.mjs.
 * Do not edit: after changing a route's schemas run
 * `npm run build -w @gcm/server && npm run generate -w @gcm/sdk`.
 */

export interface paths {
    "/cloud/games/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate the display name (and optional name_id) of a new game
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.validateGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List games: all for the operator, its own for a game cloud token
         * @description Who may call: the operator or any game cloud token. Or a signed-in person (session cookie), who sees what their teams own.
         */
        get: operations["games.getGames"];
        put?: never;
        /**
         * Create a game
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.createGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A game with its namespaces and versions
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.getGameById"];
        put?: never;
        post?: never;
        /**
         * Retire a game: gone at once with its namespaces, tokens and billing; lobbies, builds and uploads are purged in the background
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the owner role or stronger in the team that owns the game.
         */
        delete: operations["games.deleteGame"];
        options?: never;
        head?: never;
        /**
         * Change a game's display name (its name id stays)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        patch: operations["games.updateGame"];
        trace?: never;
    };
    "/cloud/games/{game_id}/host-networking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Allow or refuse network_mode "host" in the versions of this game
         * @description Who may call: the operator only.
         */
        put: operations["games.setGameHostNetworking"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/versions/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a game version (display name and configuration) without creating it
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.versions.validateGameVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The game's versions, newest first and paged (limit, cursor), without their configurations
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.versions.listGameVersions"];
        put?: never;
        /**
         * Create a game version; refused with VALIDATION_ERROR when validateGameVersion finds errors
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.versions.createGameVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/versions/{version_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A game version with its configuration, as given or resolved (?resolved=true)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.versions.getGameVersionById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/regions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Regions game modes may run in (configured by the operator with GCM_REGIONS)
         * @description Who may call: the operator or any game cloud token. Or a signed-in person (session cookie), who sees what their teams own.
         */
        get: operations["cloud.regions.listRegions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The game's namespaces, oldest first and paged (limit, cursor)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.listGameNamespaces"];
        put?: never;
        /**
         * Create a namespace (environment) running one of the game versions
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.createGameNamespace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A namespace with its full configuration
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.getGameNamespaceById"];
        put?: never;
        post?: never;
        /**
         * Delete a namespace: gone at once with its CDN users and reporter tokens; its lobbies and builds are purged in the background
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        delete: operations["games.namespaces.deleteGameNamespace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/version": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Point the namespace at another version of the game
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        put: operations["games.namespaces.updateGameNamespaceVersion"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/mm-config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set the lobby cap (1-32767) and the per-client player caps (max_players sets all five)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.updateGameNamespaceMatchmakerConfig"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/auth-user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a CDN user, or replace the password of an existing one (at most 32 users)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.updateNamespaceCdnAuthUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/cdn-auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set how the namespace CDN authenticates: none or basic
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        put: operations["games.namespaces.setNamespaceCdnAuthType"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/domain-public-auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Allow or refuse connections to the namespace by domain name
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        put: operations["games.namespaces.toggleNamespaceDomainPublicAuth"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/auth-user/{user}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a CDN user
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        delete: operations["games.namespaces.removeNamespaceCdnAuthUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Lobbies of the namespace, newest first, 64 a page, created strictly before before_create_ts
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.logs.listNamespaceLobbies"];
        put?: never;
        /**
         * Data plane: record a new lobby (idempotent for a retried lobby_id)
         * @description Who may call: the operator, or a lobby reporter token of this namespace. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.logs.createNamespaceLobby"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies/{lobby_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One lobby of the namespace log
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.logs.getNamespaceLobby"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies/{lobby_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Data plane: record start, ready or stop of a lobby (a repeated event is a no-op)
         * @description Who may call: the operator, or a lobby reporter token of this namespace. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.logs.recordNamespaceLobbyEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The calling lobby can take players: starting → ready (a repeat is a no-op); any body is ignored
         * @description Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.
         */
        post: operations["matchmaker.lobbies.ready"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/closed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Close (or open) the calling lobby to new players from the matchmaker; it keeps running
         * @description Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.
         */
        put: operations["matchmaker.lobbies.setClosed"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/players/connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A player connected to the calling lobby (counted once per player token, up to max_players)
         * @description Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.
         */
        post: operations["matchmaker.players.connected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/players/disconnected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A player left the calling lobby (a token it did not count is a no-op)
         * @description Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.
         */
        post: operations["matchmaker.players.disconnected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/regions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The regions a player may pick: those the token's namespace runs its version's game modes in
         * @description Who may call: a game client, with a namespace's public or development token; it acts in that namespace.
         */
        get: operations["matchmaker.regions.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Find a ready lobby with a free slot (first game mode and region in the order given) and take the slot: answers where to connect and a single-use player token
         * @description Who may call: a game client, with a namespace's public or development token; it acts in that namespace.
         */
        post: operations["matchmaker.lobbies.find"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/join": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join a lobby by id: a slot within its game mode's direct maximum, and a single-use player token
         * @description Who may call: a game client, with a namespace's public or development token; it acts in that namespace.
         */
        post: operations["matchmaker.lobbies.join"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a custom lobby (when the game mode's actions.create enables it) and take its first slot: answers once the lobby is ready, with where to connect and a single-use player token
         * @description Who may call: a game client, with a namespace's public or development token; it acts in that namespace.
         */
        post: operations["matchmaker.lobbies.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The ready, open, public lobbies of the namespace's listable game modes, the fullest first (at most 512)
         * @description Who may call: a game client, with a namespace's public or development token; it acts in that namespace.
         */
        get: operations["matchmaker.lobbies.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the calling lobby's state: any JSON (at most 65536 bytes) players may read; no body clears it
         * @description Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.
         */
        put: operations["matchmaker.lobbies.setState"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/matchmaker/lobbies/{lobby_id}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A lobby's state as it set it (null when none), for its namespace's game clients and lobbies
         * @description Who may call: a game client, with a namespace's public or development token, or a running lobby, with its own lobby token; it acts in that namespace.
         */
        get: operations["matchmaker.lobbies.getState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Stop a lobby the service runs (SIGTERM, then SIGKILL after the grace period)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        delete: operations["games.matchmaker.deleteMatchmakerLobby"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A lobby's latest CPU, memory and network sample and its coarse history (docs/runtime.md, Resource use)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.matchmaker.getLobbyResources"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/rollout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The namespace's lobbies per version and state, and whether its version's idle lobbies are ready
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.getNamespaceRollout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/analytics/matchmaker/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The namespace's starting and ready lobbies with their player counts, newest first (at most 1000; truncated says more exist)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.namespaces.analytics.getAnalyticsMatchmakerLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The lobby's stdout or stderr, oldest first (base64 lines with their times): the newest page, the page before `cursor`, or with watch_index the lines after it (waiting for new ones, at most the watch timeout)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.matchmaker.getLobbyLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/logs/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A presigned URL (one hour) to the lobby's whole stdout or stderr as a text file, one line each
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        post: operations["games.matchmaker.exportLobbyLogs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/matchmaker/lobbies/export-history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A presigned URL (valid one hour, the file kept a day) to a CSV of the game's lobbies created in [query_start, query_end)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        post: operations["games.matchmaker.exportMatchmakerLobbyHistory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds/prepare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare a build upload: one presigned PUT (up to 8 GiB) or one per part (multipart)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["builds.prepare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds/{build_id}/parts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Presigned PUTs of up to 100 parts of an unfinished build upload from from_part on (fresh URLs each time)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["builds.getUploadParts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds/{build_id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check that every part arrived with its length; the build is listed from then on
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["builds.complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds/{build_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A completed build (404 when tags_json is given and the build lacks one of its pairs)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["builds.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Completed builds of the environment, newest first, filtered by tags_json; paged (limit, default 1000; cursor)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["builds.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/games/{game_id}/environments/{environment_id}/builds/{build_id}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Merge tags; each exclusive key is removed from every other build of the environment
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        patch: operations["builds.patchTags"];
        trace?: never;
    };
    "/cloud/games/{game_id}/tokens/cloud": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a game cloud token (EdDSA JWT scoped to this game, revocable, expiring)
         * @description Who may call: the operator only. Or a game cloud token of this game minted for a person (gcm login) whose role in the game's team is admin or stronger. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.tokens.createCloudToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/reporter": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a lobby reporter token: may write this namespace's lobby log and nothing else
         * @description Who may call: the operator only. Or a game cloud token of this game minted for a person (gcm login) whose role in the game's team is admin or stronger. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.tokens.createReporterToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/public": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a namespace's public token, which game clients ship with: may matchmake in this namespace and nothing else
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.tokens.createGameNamespaceTokenPublic"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/development": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a development token: a public token for a developer's machine, keeping its host name and ports
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.tokens.createGameNamespaceTokenDevelopment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/development/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a development token's host name and ports without minting one: every rule broken
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.namespaces.tokens.validateGameNamespaceTokenDevelopment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The game's cloud and reporter tokens, newest first and paged, revoked ones included: ids and times, never a token
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["games.tokens.listTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a token: the operator any, a game cloud token those of its own game
         * @description Who may call: the operator or any game cloud token. Or a signed-in person (session cookie), who sees what their teams own.
         */
        delete: operations["tokens.revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/auth/inspect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who the bearer token belongs to
         * @description Who may call: any valid token (operator, game cloud or lobby reporter token). Or a signed-in person (session cookie), who sees what their teams own.
         */
        get: operations["auth.inspect"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/prepare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare the upload of a custom avatar (PNG or JPEG under 2,000,000 bytes): a URL to PUT it to
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.avatars.prepareCustomAvatarUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/avatar-upload/{upload_id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the uploaded avatar (length, PNG/JPEG magic bytes) and make it the game avatar
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.
         */
        post: operations["games.avatars.completeCustomAvatarUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/uploads/{upload_id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete any upload of the caller’s game (the operator: of any game)
         * @description Who may call: the operator or any game cloud token. Or a signed-in person (session cookie), who sees what their teams own.
         */
        post: operations["cloud.uploads.completeUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/avatars/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A game avatar image
         * @description Who may call: anyone; no token.
         */
        get: operations["avatars.getAvatar"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/downloads/{filename}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a file the service exported, from a URL it signed (exports of lobby logs and history)
         * @description Who may call: anyone; no token.
         */
        get: operations["downloads.getDownload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/devices/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The cloud token once the link is completed; with watch_index, waits for the next change (at most the watch timeout)
         * @description Who may call: anyone; no token.
         */
        get: operations["devices.links.get"];
        put?: never;
        /**
         * Start a device login: a link token (valid one hour) and the URL where a person completes it
         * @description Who may call: anyone; no token.
         */
        post: operations["devices.links.prepare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/devices/links/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete a device link: mint a new cloud token for game_id (the operator: any game; a game cloud token: its own) and attach it
         * @description Who may call: the operator or any game cloud token. Or a signed-in person (session cookie), who sees what their teams own.
         */
        post: operations["devices.links.complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/devices/link/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The page where a signed-in person (or an operator, with a token) completes a device link (HTML)
         * @description Who may call: anyone; no token.
         */
        get: operations["devices.links.page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The plan in force and the plan chosen; with watch_index, waits for the next change (at most the watch timeout)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the viewer role or stronger in the team that owns the game.
         */
        get: operations["games.billing.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/billing/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Choose the plan: an upgrade is in force at once, a downgrade at the end of the period; the active plan again cancels a pending downgrade
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the owner role or stronger in the team that owns the game.
         */
        put: operations["games.billing.updatePlan"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a team with its first owner (the account is made when the email has none)
         * @description Who may call: the operator only.
         */
        post: operations["teams.createTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/team": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Give the game to a team (or, with null, back to the operator alone)
         * @description Who may call: the operator only.
         */
        put: operations["games.setGameTeam"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/setup/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Whether a first-run setup link is still open (docs/first-run.md)
         * @description Who may call: anyone; no token.
         */
        post: operations["setup.getStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Use the first-run setup link: the first team, its owner’s account, and a session for them
         * @description Who may call: anyone; no token.
         */
        post: operations["setup.complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The game's audit log, newest first and paged: each write with its actor, operation, resource, ray id and outcome
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["games.audit.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's audit log, newest first and paged: writes to its games and to its members and invitations
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["teams.audit.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every audit event, newest first and paged: the games' and teams' events, and those no other list shows (refused calls to operator-only routes, calls naming a team their caller is not in)
         * @description Who may call: the operator only.
         */
        get: operations["audit.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The webhook endpoints, oldest first (at most 10)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["games.webhooks.list"];
        put?: never;
        /**
         * Register an HTTPS endpoint for the game's events; the answer holds its signing secret, shown only now
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.webhooks.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook endpoint
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["games.webhooks.get"];
        put?: never;
        post?: never;
        /**
         * Delete an endpoint with its delivery log; nothing more is sent to it
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        delete: operations["games.webhooks.delete"];
        options?: never;
        head?: never;
        /**
         * Change an endpoint: its URL, events, description, or whether it is enabled
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        patch: operations["games.webhooks.update"];
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks/{webhook_id}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret; the new one is answered once and signs every delivery from now on
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.webhooks.rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks/{webhook_id}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a `ping` delivery to this endpoint, to check the receiver
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.webhooks.ping"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log, newest first: each event sent, its attempts and their HTTP status
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["games.webhooks.listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/games/{game_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again (same event and body, a new delivery id)
         * @description Who may call: the operator, or a game cloud token of this game. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["games.webhooks.redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The webhook endpoints, oldest first (at most 10)
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["teams.webhooks.list"];
        put?: never;
        /**
         * Register an HTTPS endpoint for the team's games and the team's events; the answer holds its signing secret, shown only now
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["teams.webhooks.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One webhook endpoint
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["teams.webhooks.get"];
        put?: never;
        post?: never;
        /**
         * Delete an endpoint with its delivery log; nothing more is sent to it
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        delete: operations["teams.webhooks.delete"];
        options?: never;
        head?: never;
        /**
         * Change an endpoint: its URL, events, description, or whether it is enabled
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        patch: operations["teams.webhooks.update"];
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks/{webhook_id}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret; the new one is answered once and signs every delivery from now on
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["teams.webhooks.rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks/{webhook_id}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a `ping` delivery to this endpoint, to check the receiver
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["teams.webhooks.ping"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log, newest first: each event sent, its attempts and their HTTP status
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        get: operations["teams.webhooks.listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cloud/teams/{team_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again (same event and body, a new delivery id)
         * @description Who may call: the operator only. Or a signed-in person (session cookie) with the admin role or stronger in the team that owns the game.
         */
        post: operations["teams.webhooks.redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/{upload_id}/parts/{part}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload one part (or the whole file) to a URL signed by prepare; any content type
         * @description Who may call: anyone; no token.
         */
        put: operations["uploads.putUploadPart"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AuditActor: {
            kind: "operator" | "cloud_token" | "reporter_token" | "lobby_token" | "public_token" | "development_token" | "person";
            /**
             * Format: uuid
             * @description the token used (cloud and reporter tokens)
             */
            token_id?: string;
            /**
             * Format: uuid
             * @description the signed-in person
             */
            user_id?: string;
            /** @description the person's email when the call was made */
            email?: string;
        };
        AuditEvent: {
            /**
             * Format: uuid
             * @description a UUID
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            ts: string;
            actor: components["schemas"]["AuditActor"];
            /** @description the operationId (`games.namespaces.createGameNamespace`), or `auth.*` */
            operation: string;
            method: string;
            /** @description the request path, without its query */
            path: string;
            /**
             * Format: uuid
             * @description the game the call was about
             */
            game_id?: string;
            /**
             * Format: uuid
             * @description the team that owned the game at the time, or the team the call named (path or body) when its caller belongs to it
             */
            team_id?: string;
            /** @description the ids the call named in its path, and those its answer made (`namespace_id`, …) */
            resource: {
                [key: string]: string;
            };
            /** @description the HTTP status answered */
            status: number;
            outcome: "succeeded" | "refused" | "failed";
            /**
             * Format: uuid
             * @description the request's ray id (its x-ray-id header): its log lines carry the same
             */
            ray_id: string;
        };
        AuditList: {
            events: components["schemas"]["AuditEvent"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        Build: {
            /**
             * Format: uuid
             * @description a UUID
             */
            id: string;
            name: string;
            content_length: number;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            created_at: string;
            /** @description tag key → value */
            tags: {
                [key: string]: string;
            };
        };
        BuildList: {
            builds: components["schemas"]["Build"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        CdnAuthTypeBody: {
            auth_type: "none" | "basic";
        };
        CdnAuthUserBody: {
            /** @description user name, 1-64 bytes, no white space, control characters or colon */
            user: string;
            /** @description bcrypt hash of the password; stored, never returned */
            password: string;
        };
        CompleteDeviceLinkBody: {
            /** @description the device_link_token (a JWT) that prepare returned */
            device_link_token: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            game_id: string;
        };
        CompleteSetupBody: {
            /** @description the secret of the setup link (the start log, or the data dir’s first-run-setup file) */
            secret: string;
            team_name: string;
            /** @description 1-48 of a-z, 0-9 and - */
            team_slug: string;
            /** @description the owner’s */
            name: string;
            /**
             * Format: email
             * @description the owner’s sign-in email
             */
            email: string;
            /** @description the owner’s; as strong as GCM_PASSWORD_MIN_SCORE asks (PASSWORD_TOO_WEAK otherwise) */
            password: string;
        };
        CompleteSetupResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            team_id: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            user_id: string;
            email: string;
        };
        ContainerRuntime: {
            args?: string[] | null;
            /** @description CLI only: build arguments of the image; stored, no effect on the service */
            build_args?: {
                [key: string]: string;
            } | null;
            /** @description CLI only: Dockerfile the image is built from; stored, no effect on the service */
            dockerfile?: string | null;
            env?: {
                [key: string]: string;
            } | null;
            /** @description CLI only: local image tag to upload; stored, no effect on the service */
            image?: string | null;
            image_id?: string | null;
            network_mode?: ("bridge" | "host") | null;
            ports?: {
                [key: string]: {
                    /** @description CLI only: port the local development server listens on; stored, no effect on the service */
                    dev_port?: number | null;
                    /** @description CLI only: port range of the local development server; stored, no effect on the service */
                    dev_port_range?: {
                        min: number;
                        max: number;
                    } | null;
                    /** @description CLI only: protocol of the local development server; stored, no effect on the service */
                    dev_protocol?: string | null;
                    port?: number | null;
                    port_range?: {
                        min: number;
                        max: number;
                    } | null;
                    protocol?: ("http" | "https" | "tcp" | "tcp_tls" | "udp") | null;
                    proxy?: ("none" | "game_guard") | null;
                };
            } | null;
        };
        CreateCustomLobbyBody: {
            game_mode: string;
            region?: string;
            publicity?: "public" | "private";
            tags?: {
                [key: string]: string;
            };
            max_players?: number;
            lobby_config?: unknown;
            captcha?: {
                hcaptcha?: {
                    client_response: string;
                };
                turnstile?: {
                    client_response: string;
                };
            };
            verification_data?: unknown;
        };
        CreateDevelopmentTokenBody: {
            /** @description the developer's machine: a host name or an IP address */
            hostname: string;
            ports?: {
                [key: string]: components["schemas"]["DevelopmentPort"];
            };
            lobby_ports?: components["schemas"]["DevelopmentLobbyPort"][];
        };
        CreateGameBody: {
            /** @description 1-16 of a-z, 0-9 and -, unique */
            name_id: string;
            /** @description 1-24 bytes */
            display_name: string;
            /**
             * Format: uuid
             * @description the team that is to own the game: the operator may name any or none; a signed-in person must name one where they are admin or owner
             */
            team_id?: string;
        };
        CreateGameResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            game_id: string;
        };
        CreateLobbyBody: {
            lobby_id?: string | null;
            /** @description game mode name */
            lobby_group_name_id: string;
            region_id: string;
            create_ts?: string | null;
        };
        CreateLobbyResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
        };
        CreateNamespaceBody: {
            /** @description 1-16 of a-z, 0-9 and -, unique within the game */
            name_id: string;
            /** @description 1-24 bytes */
            display_name: string;
            /**
             * Format: uuid
             * @description a version of this game
             */
            version_id: string;
        };
        CreateNamespaceResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            namespace_id: string;
        };
        CreateTeamBody: {
            /** @description shown in lists */
            name: string;
            /** @description 1-48 of a-z, 0-9 and -, unique */
            slug: string;
            /**
             * Format: email
             * @description the owner’s sign-in email
             */
            owner_email: string;
            /** @description for a new account (default: the part of the email before @) */
            owner_name?: string;
        };
        CreateTeamResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            team_id: string;
            owner: {
                /**
                 * Format: uuid
                 * @description a UUID
                 */
                user_id: string;
                email: string;
                /** @description true when this call made the account */
                new_account: boolean;
            };
            /** @description only for a new account when no SMTP server is configured (GCM_SMTP_URL): the operator passes it on; with SMTP it is mailed to the owner instead. Never replayed by Idempotency-Key. */
            password_setup?: {
                /** @description for POST /auth/reset-password {"token", "newPassword"} */
                token: string;
                /**
                 * Format: date-time
                 * @description RFC 3339 with milliseconds, UTC
                 */
                expire_ts: string;
            };
        };
        CreateVersionResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
        };
        CreateWebhookBody: {
            /** @description where deliveries are POSTed: an https:// URL of a public host */
            url: string;
            /** @description the event types sent to this endpoint */
            events: ("lobby.created" | "lobby.stopped" | "lobby.failed" | "build.completed" | "version.deployed" | "plan.changed" | "member.joined")[];
            /** @description a note for people */
            description?: string;
            /** @description false keeps the endpoint without sending to it */
            enabled?: boolean;
        };
        CreateWebhookResponse: {
            webhook: components["schemas"]["Webhook"];
            /** @description the signing secret (whsec_…): shown when the endpoint is made and when it is rotated, never again */
            secret: string;
        };
        DeleteMatchmakerLobbyResponse: {
            /** @description true: the lobby was running and is now stopping; false: it was stopping or stopped already */
            did_remove: boolean;
        };
        DevelopmentLobbyPort: {
            label: string;
            target_port?: number;
            port_range?: {
                min: number;
                max: number;
            };
            /** @description http, https, tcp, tcp_tls or udp */
            proxy_protocol: "http" | "https" | "tcp" | "tcp_tls" | "udp";
        };
        DevelopmentPort: {
            port?: number;
            port_range?: {
                min: number;
                max: number;
            };
            /** @description http, https, tcp, tcp_tls or udp */
            protocol: "http" | "https" | "tcp" | "tcp_tls" | "udp";
        };
        DeviceLinkResult: {
            /** @description once the link is completed, until it expires; always the same token */
            cloud_token?: string;
            watch: components["schemas"]["Watch"];
        };
        DomainPublicAuthBody: {
            enabled: boolean;
        };
        /** @description Every non-2xx response */
        ErrorBody: {
            /** @description UPPER_SNAKE error code, see the README catalogue */
            code: string;
            message: string;
            /**
             * Format: uuid
             * @description request id, also in the x-ray-id header and the log line
             */
            ray_id: string;
            documentation?: string;
            metadata?: {
                [key: string]: unknown;
            };
        };
        ExportLobbyHistoryBody: {
            /** @description epoch milliseconds: lobbies created at or after this */
            query_start: number;
            /** @description epoch milliseconds: lobbies created before this */
            query_end: number;
        };
        ExportLobbyHistoryResponse: {
            /** @description a presigned URL (valid one hour) to a CSV file of the game's lobbies in the period */
            url: string;
        };
        ExportLobbyLogsBody: {
            /** @description the lobby's standard output or standard error */
            stream: "std_out" | "std_err";
        };
        ExportLobbyLogsResponse: {
            /** @description a presigned URL (valid one hour) to the whole stream as a text file, one line each */
            url: string;
        };
        FailedLobby: {
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
            game_mode: string;
            region_id: string;
            exit_code: number;
            /** @description a lobby the service ran: why it stopped (exited, ready-timeout, image: …, studio, rollout…) */
            stop_reason?: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            stop_ts: string;
        };
        FindLobbyBody: {
            game_modes: string[];
            regions?: string[];
            prevent_auto_create_lobby?: boolean;
            tags?: {
                [key: string]: string;
            };
            max_players?: number;
            captcha?: {
                hcaptcha?: {
                    client_response: string;
                };
                turnstile?: {
                    client_response: string;
                };
            };
            verification_data?: unknown;
        };
        GameBilling: {
            /**
             * @description trial < indie < studio (cheapest first); trial is free
             * @enum {unknown}
             */
            active_plan: "trial" | "indie" | "studio";
            /**
             * @description trial < indie < studio (cheapest first); trial is free
             * @enum {unknown}
             */
            plan: "trial" | "indie" | "studio";
            /** @description present while a paid plan is in force: the current 30-day period */
            subscription?: {
                /**
                 * Format: date-time
                 * @description RFC 3339 with milliseconds, UTC
                 */
                period_start_ts: string;
                /**
                 * Format: date-time
                 * @description RFC 3339 with milliseconds, UTC
                 */
                period_end_ts: string;
            };
            watch: components["schemas"]["Watch"];
        };
        GameFull: {
            /**
             * Format: uuid
             * @description a UUID
             */
            game_id: string;
            name_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /**
             * Format: uuid
             * @description the team that owns the game, when one does
             */
            team_id?: string;
            avatar_url?: string;
            /** @description whether versions may use network_mode "host" (set by the operator) */
            host_networking_enabled: boolean;
            /** @description how the service's lobbies run (GCM_RUNTIME): none, an external data plane reports them; docker, the service runs them itself on Docker engines; swarm, on a Docker Swarm cluster */
            runtime: "none" | "docker" | "swarm";
            namespaces: components["schemas"]["NamespaceSummary"][];
            versions: components["schemas"]["VersionSummary"][];
        };
        GameList: {
            games: components["schemas"]["GameSummary"][];
        };
        GameSummary: {
            /**
             * Format: uuid
             * @description a UUID
             */
            game_id: string;
            name_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /**
             * Format: uuid
             * @description the team that owns the game, when one does
             */
            team_id?: string;
            avatar_url?: string;
        };
        GetAnalyticsMatchmakerLiveResponse: {
            /** @description the namespace's starting and ready lobbies, newest first, at most 1000 */
            lobbies: components["schemas"]["LobbySummaryAnalytics"][];
            /** @description true: the namespace has more than 1000 live lobbies and the oldest are left out */
            truncated: boolean;
        };
        GetBuildResponse: {
            build: components["schemas"]["Build"];
        };
        GetGameResponse: {
            game: components["schemas"]["GameFull"];
        };
        GetLobbyLogsResponse: {
            /** @description what the lobby printed, one base64-encoded line each (without its newline), oldest first */
            lines: string[];
            /** @description each line's time, as the engine recorded it */
            timestamps: string[];
            watch: components["schemas"]["Watch"];
            /** @description true once the lobby has exited and all it printed is stored: a watch then answers at once, as there is no more to wait for */
            complete: boolean;
            /** @description present when older lines exist: pass it as `cursor` to read the page before this one */
            cursor?: string;
        };
        GetLobbyResponse: {
            lobby: components["schemas"]["LobbySummary"];
        };
        GetNamespaceResponse: {
            namespace: components["schemas"]["NamespaceFull"];
        };
        GetVersionResponse: {
            version: components["schemas"]["VersionFull"];
        };
        HostNetworkingBody: {
            enabled: boolean;
        };
        InspectResponse: {
            agent: {
                operator?: Record<string, never>;
                game_cloud?: {
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    game_id: string;
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    token_id: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 with milliseconds, UTC
                     */
                    create_ts: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 with milliseconds, UTC
                     */
                    expire_ts: string;
                    /** @description the game the token is scoped to, by name (absent once the game is retired) */
                    game?: {
                        name_id: string;
                        display_name: string;
                    };
                    /** @description the team that owns the game, when one does */
                    team?: {
                        /**
                         * Format: uuid
                         * @description a UUID
                         */
                        team_id: string;
                        name: string;
                    };
                    /** @description the person the token was minted for (gcm login, or a person’s mint), and their role now in the game’s team; absent for the operator’s tokens */
                    minted_for?: {
                        /**
                         * Format: uuid
                         * @description a UUID
                         */
                        user_id: string;
                        email: string;
                        name: string;
                        role?: "owner" | "admin" | "member" | "viewer";
                    };
                };
                namespace_reporter?: {
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    game_id: string;
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    namespace_id: string;
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    token_id: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 with milliseconds, UTC
                     */
                    create_ts: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 with milliseconds, UTC
                     */
                    expire_ts: string;
                };
                /** @description a person signed in with a session cookie, and their role in each of their teams */
                person?: {
                    /**
                     * Format: uuid
                     * @description a UUID
                     */
                    user_id: string;
                    email: string;
                    name: string;
                    teams: {
                        /**
                         * Format: uuid
                         * @description a UUID
                         */
                        team_id: string;
                        role: "owner" | "admin" | "member" | "viewer";
                    }[];
                };
            };
        };
        JoinLobby: {
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
            region: {
                region_id: string;
                display_name: string;
            };
            ports: {
                [key: string]: components["schemas"]["JoinPort"];
            };
            player: components["schemas"]["JoinPlayer"];
        };
        JoinLobbyAnswer: {
            lobby: components["schemas"]["JoinLobby"];
            ports: {
                [key: string]: components["schemas"]["JoinPort"];
            };
            player: components["schemas"]["JoinPlayer"];
        };
        JoinLobbyBody: {
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
            captcha?: {
                hcaptcha?: {
                    client_response: string;
                };
                turnstile?: {
                    client_response: string;
                };
            };
            verification_data?: unknown;
        };
        JoinPlayer: {
            /** @description pass it to the lobby server, which validates it with /matchmaker/players/connected */
            token: string;
        };
        JoinPort: {
            /** @description hostname:port; absent for a port range */
            host?: string;
            hostname: string;
            port?: number;
            port_range?: {
                min: number;
                max: number;
            };
            is_tls: boolean;
        };
        ListLobbiesResponse: {
            game_modes: {
                game_mode_id: string;
            }[];
            regions: {
                region_id: string;
                provider_display_name: string;
                region_display_name: string;
                datacenter_coord: {
                    latitude: number;
                    longitude: number;
                };
                datacenter_distance_from_client: {
                    kilometers: number;
                    miles: number;
                };
            }[];
            lobbies: components["schemas"]["ListedLobby"][];
        };
        ListRegionsResponse: {
            regions: components["schemas"]["RegionInfo"][];
        };
        ListedLobby: {
            region_id: string;
            game_mode_id: string;
            /**
             * Format: uuid
             * @description the lobby (join it with POST /matchmaker/lobbies/join)
             */
            lobby_id: string;
            max_players_normal: number;
            max_players_direct: number;
            max_players_party: number;
            total_player_count: number;
            state?: unknown;
        };
        /** @description an empty object, as the original API answered */
        LobbyCallAnswer: Record<string, never>;
        LobbyEventBody: {
            kind: "start" | "ready" | "stop";
            ts?: string | null;
            exit_code?: number | null;
            failed?: boolean | null;
        };
        LobbyList: {
            lobbies: components["schemas"]["LobbySummary"][];
        };
        LobbyResourceSample: {
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            ts: string;
            /** @description CPU in use since the previous sample, in cores */
            cpu_cores: number;
            /** @description memory in use, without reclaimable page cache */
            memory_bytes: number;
            /** @description the tier's memory limit */
            memory_limit_bytes: number;
            /** @description network bytes received since the lobby started */
            rx_bytes: number;
            /** @description network bytes sent since the lobby started */
            tx_bytes: number;
        };
        LobbyResources: {
            latest?: {
                /**
                 * Format: date-time
                 * @description RFC 3339 with milliseconds, UTC
                 */
                ts: string;
                /** @description CPU in use since the previous sample, in cores */
                cpu_cores: number;
                /** @description memory in use, without reclaimable page cache */
                memory_bytes: number;
                /** @description the tier's memory limit */
                memory_limit_bytes: number;
                /** @description network bytes received since the lobby started */
                rx_bytes: number;
                /** @description network bytes sent since the lobby started */
                tx_bytes: number;
            };
            /** @description coarse samples over the lobby’s life, oldest first */
            history: components["schemas"]["LobbyResourceSample"][];
        };
        LobbyRunning: {
            /** @description closed: ready, but the matchmaker sends it no new players */
            state?: "starting" | "ready" | "closed" | "stopping";
            player_count?: number;
            max_players?: number;
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id?: string;
        };
        LobbySummary: {
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            lobby_group_name_id: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            namespace_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            ready_ts?: string;
            region_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            start_ts?: string;
            status: {
                running: components["schemas"]["LobbyRunning"];
                stopped?: {
                    exit_code: number;
                    failed: boolean;
                    /**
                     * Format: date-time
                     * @description RFC 3339 with milliseconds, UTC
                     */
                    stop_ts: string;
                    /** @description a lobby the service ran: why it stopped (exited, ready-timeout, image: …, studio, rollout…) */
                    stop_reason?: string;
                    /**
                     * Format: uuid
                     * @description a lobby the service ran: the version it ran
                     */
                    version_id?: string;
                };
            };
        };
        LobbySummaryAnalytics: {
            /**
             * Format: uuid
             * @description a UUID
             */
            lobby_id: string;
            /**
             * Format: uuid
             * @description UUIDv5 of the lobby's version id and game mode: one per game mode of each version
             */
            lobby_group_id: string;
            /** @description the game mode */
            lobby_group_name_id: string;
            /** @description the region's name id, e.g. lnd-atl */
            region_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /** @description the lobby called ready; false while it starts */
            is_ready: boolean;
            /** @description ready, open, and with no player (pending or connected): what the reconciler counts as idle */
            is_idle: boolean;
            /** @description the lobby closed itself to new players */
            is_closed: boolean;
            /** @description it runs a version other than the namespace runs now */
            is_outdated: boolean;
            max_players_normal: number;
            max_players_direct: number;
            max_players_party: number;
            /** @description players holding a slot: connected, and issued a player token not yet connected */
            total_player_count: number;
            /** @description players the lobby reported connected */
            registered_player_count: number;
        };
        MatchmakerConfigBody: {
            lobby_count_max: number;
            max_players: number;
        };
        NamespaceFull: {
            /**
             * Format: uuid
             * @description a UUID
             */
            namespace_id: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            name_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            config: {
                cdn: {
                    /** @description "none" or "basic" */
                    auth_type: string;
                    auth_user_list: {
                        user: string;
                    }[];
                    domains: {
                        domain: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 with milliseconds, UTC
                         */
                        create_ts: string;
                        verification_errors: string[];
                        verification_method: {
                            http?: Record<string, never>;
                            cname_record?: string;
                            invalid?: Record<string, never>;
                        };
                        verification_status: string;
                    }[];
                    enable_domain_public_auth: boolean;
                };
                identity: Record<string, never>;
                kv: Record<string, never>;
                matchmaker: {
                    lobby_count_max: number;
                    max_players_per_client: number;
                    max_players_per_client_hosting: number;
                    max_players_per_client_proxy: number;
                    max_players_per_client_tor: number;
                    max_players_per_client_vpn: number;
                };
            };
        };
        NamespaceList: {
            namespaces: components["schemas"]["NamespaceSummary"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        NamespaceRollout: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            complete: boolean;
            groups: components["schemas"]["RolloutGroup"][];
            failed: components["schemas"]["FailedLobby"][];
            problems: components["schemas"]["RegionProblem"][];
        };
        NamespaceSummary: {
            /**
             * Format: uuid
             * @description a UUID
             */
            namespace_id: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            name_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
        };
        PartsResponse: {
            presigned_requests: components["schemas"]["PresignedRequest"][];
            /** @description how many parts the upload has; presigned_requests holds at most the first 100, fetch the rest from .../builds/{build_id}/parts?from_part= */
            part_count: number;
        };
        PatchTagsBody: {
            /** @description tag key → value */
            tags: {
                [key: string]: string;
            };
            exclusive_tags?: string[] | null;
        };
        PlayerTokenBody: {
            /** @description the player token the player connected with; counted once per lobby */
            player_token: string;
        };
        PrepareAvatarBody: {
            /** @description file name ending in .png, .jpg or .jpeg */
            path: string;
            mime?: string | null;
            /** @description size in bytes; an avatar must be under 2,000,000 */
            content_length: number;
        };
        PrepareAvatarResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            upload_id: string;
            presigned_request: components["schemas"]["PresignedRequest"];
        };
        PrepareBuildBody: {
            /** @description 1-128 bytes */
            name: string;
            image_file: {
                /** @description file name of the image, echoed in every presigned request */
                path: string;
                content_type?: string | null;
                content_length: number;
            };
            multipart_upload?: boolean | null;
            tags?: {
                [key: string]: string;
            } | null;
        };
        PrepareBuildResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            build_id: string;
            presigned_requests: components["schemas"]["PresignedRequest"][];
            /** @description how many parts the upload has; presigned_requests holds at most the first 100, fetch the rest from .../builds/{build_id}/parts?from_part= */
            part_count: number;
        };
        PrepareDeviceLinkResponse: {
            /**
             * Format: uuid
             * @description a UUID
             */
            device_link_id: string;
            /** @description a JWT naming the link, valid one hour; grants nothing itself */
            device_link_token: string;
            /** @description the page where a person completes the link */
            device_link_url: string;
            /** @description a confirmation code (XXXX-XXXX) the page shows too: print it, so the person can tell the page is for this device */
            device_link_user_code: string;
        };
        /** @description one PUT to make: content_length bytes of the file, from byte_offset, to url */
        PresignedRequest: {
            /** @description offset of this part in the file; 0 for one PUT */
            byte_offset: number;
            /** @description exact length the PUT body must have */
            content_length: number;
            /** @description the file name given to prepare */
            path: string;
            /** @description absolute URL to PUT the bytes to; valid for GCM_UPLOAD_URL_TTL_SECONDS */
            url: string;
        };
        RegionInfo: {
            /** @description the region name id (GCM_REGIONS) */
            region_id: string;
            provider_display_name: string;
            region_display_name: string;
            /** @description not known to the service: 0, 0 (docs/interface-notes.md) */
            datacenter_coord: {
                latitude: number;
                longitude: number;
            };
            /** @description not estimated by the service: 0 (docs/interface-notes.md) */
            datacenter_distance_from_client: {
                kilometers: number;
                miles: number;
            };
        };
        RegionProblem: {
            region_id: string;
            /** @description why, in the runtime's words, e.g. 'no ready node: no node of the swarm is labelled gcm.region=eu' */
            message: string;
        };
        RegionsResponse: {
            regions: {
                region_id: string;
                name_id: string;
            }[];
        };
        RolloutGroup: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            game_mode: string;
            region_id: string;
            idle_wanted: number;
            lobbies: {
                starting: number;
                /** @description ready, no players, not closed */
                ready_idle: number;
                /** @description ready with players */
                ready_busy: number;
                closed: number;
                stopping: number;
            };
        };
        RotateWebhookSecretResponse: {
            /** @description the signing secret (whsec_…): shown when the endpoint is made and when it is rotated, never again */
            secret: string;
        };
        SetGameTeamBody: {
            team_id: string | null;
        };
        SetLobbyClosedBody: {
            /** @description true: the matchmaker routes no new players to the lobby */
            is_closed: boolean;
        };
        SetNamespaceVersionBody: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
        };
        SetupStatusBody: {
            /** @description the secret of the setup link (the start log, or the data dir’s first-run-setup file) */
            secret: string;
        };
        SetupStatusResponse: {
            /**
             * @description the link is this service’s and has not been used
             * @enum {string}
             */
            status: "open";
        };
        TokenList: {
            tokens: components["schemas"]["TokenSummary"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        TokenResponse: {
            /** @description shown once; the service keeps only its id */
            token: string;
            /**
             * Format: uuid
             * @description a UUID
             */
            token_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            expire_ts: string;
        };
        TokenSummary: {
            /**
             * Format: uuid
             * @description a UUID
             */
            token_id: string;
            kind: "cloud" | "reporter" | "public" | "development";
            /** @description the namespace a reporter token may report for; null for a cloud token */
            namespace_id: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /** @description when the token stops working; every token the service mints today expires */
            expire_ts: string | null;
            /** @description when a request last authenticated with it, to the minute (a use less than a minute after the recorded one is not recorded); null if never */
            last_used_ts: string | null;
            /** @description when it was revoked; null if it was not */
            revoke_ts: string | null;
            /**
             * Format: uuid
             * @description the person it was minted for (a device link they approved, or their own mint); revoked when they leave the team or become a viewer
             */
            user_id?: string;
        };
        UpdateGameBody: {
            /** @description 1-24 bytes */
            display_name: string;
        };
        UpdatePlanBody: {
            /** @description one of trial, indie, studio */
            plan: string;
        };
        UpdateWebhookBody: {
            /** @description where deliveries are POSTed: an https:// URL of a public host */
            url?: string;
            /** @description the event types sent to this endpoint */
            events?: ("lobby.created" | "lobby.stopped" | "lobby.failed" | "build.completed" | "version.deployed" | "plan.changed" | "member.joined")[];
            /** @description a note for people */
            description?: string;
            enabled?: boolean;
        };
        ValidateDevelopmentTokenBody: {
            /** @description the developer's machine: a host name or an IP address */
            hostname: string;
            lobby_ports: components["schemas"]["DevelopmentLobbyPort"][];
        };
        ValidateGameBody: {
            /** @description 1-24 bytes */
            display_name: string;
            name_id?: string | null;
            /**
             * Format: uuid
             * @description the team that is to own the game (a signed-in person must name one)
             */
            team_id?: string;
        };
        ValidationError: {
            /** @description origin of the error, kebab-case segments; the last names the rule broken (stable) */
            path: string[];
            /** @description a sentence naming the rule and its limit, for people (its wording may change) */
            message: string;
        };
        ValidationResult: {
            errors: components["schemas"]["ValidationError"][];
        };
        VersionBody: {
            /** @description 1-128 bytes, unique among the versions of the game */
            display_name: string;
            config: components["schemas"]["VersionConfig"];
        };
        /** @description game version configuration: game modes, their builds, ports, regions, player counts */
        VersionConfig: {
            cdn?: {
                /** @description CLI only: command that builds the site; stored, no effect on the service */
                build_command?: string | null;
                /** @description CLI only: environment of the build command; stored, no effect on the service */
                build_env?: {
                    [key: string]: string;
                } | null;
                /** @description CLI only: folder the build writes; stored, no effect on the service */
                build_output?: string | null;
                site_id?: string | null;
                routes?: {
                    glob: string;
                    priority: number;
                    middlewares: {
                        kind: {
                            custom_headers?: {
                                headers: {
                                    name: string;
                                    value: string;
                                }[];
                            } | null;
                        };
                    }[];
                }[] | null;
            } | null;
            engine?: {
                custom?: {
                    [key: string]: unknown;
                } | null;
                engine_a?: {
                    [key: string]: unknown;
                } | null;
                html5?: {
                    [key: string]: unknown;
                } | null;
                engine_b?: {
                    [key: string]: unknown;
                } | null;
                engine_c?: ({
                    /** @description CLI only: module that holds the game code */
                    game_module: string;
                } & {
                    [key: string]: unknown;
                }) | null;
            } | null;
            kv?: {
                [key: string]: unknown;
            } | null;
            matchmaker?: {
                captcha?: {
                    captcha_provider_a?: {
                        secret_key?: string | null;
                        site_key?: string | null;
                    } | null;
                    captcha_provider_b?: {
                        secret_key: string;
                        site_key: string;
                    } | null;
                    requests_before_reverify: number;
                    verification_ttl: number;
                } | null;
                /** @description CLI only: host name of the local development server; stored, no effect on the service */
                dev_hostname?: string | null;
                container?: components["schemas"]["ContainerRuntime"] | null;
                docker?: {
                    args?: string[] | null;
                    /** @description CLI only: build arguments of the image; stored, no effect on the service */
                    build_args?: {
                        [key: string]: string;
                    } | null;
                    /** @description CLI only: Dockerfile the image is built from; stored, no effect on the service */
                    dockerfile?: string | null;
                    env?: {
                        [key: string]: string;
                    } | null;
                    /** @description CLI only: local image tag to upload; stored, no effect on the service */
                    image?: string | null;
                    image_id?: string | null;
                    network_mode?: ("bridge" | "host") | null;
                    ports?: {
                        [key: string]: {
                            /** @description CLI only: port the local development server listens on; stored, no effect on the service */
                            dev_port?: number | null;
                            /** @description CLI only: port range of the local development server; stored, no effect on the service */
                            dev_port_range?: {
                                min: number;
                                max: number;
                            } | null;
                            /** @description CLI only: protocol of the local development server; stored, no effect on the service */
                            dev_protocol?: string | null;
                            port?: number | null;
                            port_range?: {
                                min: number;
                                max: number;
                            } | null;
                            protocol?: ("http" | "https" | "tcp" | "tcp_tls" | "udp") | null;
                            proxy?: ("none" | "game_guard") | null;
                        };
                    } | null;
                } | null;
                game_modes?: {
                    [key: string]: {
                        actions?: {
                            create?: {
                                enabled: boolean;
                                enable_private?: boolean | null;
                                enable_public?: boolean | null;
                                verification?: {
                                    url: string;
                                    headers: {
                                        [key: string]: string;
                                    };
                                } | null;
                            } | null;
                            find?: {
                                enabled: boolean;
                                verification?: {
                                    url: string;
                                    headers: {
                                        [key: string]: string;
                                    };
                                } | null;
                            } | null;
                            join?: {
                                enabled: boolean;
                                verification?: {
                                    url: string;
                                    headers: {
                                        [key: string]: string;
                                    };
                                } | null;
                            } | null;
                        } | null;
                        allow_dynamic_max_players?: boolean | null;
                        container?: components["schemas"]["ContainerRuntime"] | null;
                        docker?: {
                            args?: string[] | null;
                            /** @description CLI only: build arguments of the image; stored, no effect on the service */
                            build_args?: {
                                [key: string]: string;
                            } | null;
                            /** @description CLI only: Dockerfile the image is built from; stored, no effect on the service */
                            dockerfile?: string | null;
                            env?: {
                                [key: string]: string;
                            } | null;
                            /** @description CLI only: local image tag to upload; stored, no effect on the service */
                            image?: string | null;
                            image_id?: string | null;
                            network_mode?: ("bridge" | "host") | null;
                            ports?: {
                                [key: string]: {
                                    /** @description CLI only: port the local development server listens on; stored, no effect on the service */
                                    dev_port?: number | null;
                                    /** @description CLI only: port range of the local development server; stored, no effect on the service */
                                    dev_port_range?: {
                                        min: number;
                                        max: number;
                                    } | null;
                                    /** @description CLI only: protocol of the local development server; stored, no effect on the service */
                                    dev_protocol?: string | null;
                                    port?: number | null;
                                    port_range?: {
                                        min: number;
                                        max: number;
                                    } | null;
                                    protocol?: ("http" | "https" | "tcp" | "tcp_tls" | "udp") | null;
                                    proxy?: ("none" | "game_guard") | null;
                                };
                            } | null;
                        } | null;
                        idle_lobbies?: {
                            min: number;
                            max: number;
                        } | null;
                        listable?: boolean | null;
                        max_players?: number | null;
                        max_players_direct?: number | null;
                        max_players_party?: number | null;
                        regions?: {
                            [key: string]: {
                                idle_lobbies?: {
                                    min: number;
                                    max: number;
                                } | null;
                                tier?: string | null;
                            };
                        } | null;
                        taggable?: boolean | null;
                        tier?: string | null;
                    };
                } | null;
                idle_lobbies?: {
                    min: number;
                    max: number;
                } | null;
                max_players?: number | null;
                max_players_direct?: number | null;
                max_players_party?: number | null;
                regions?: {
                    [key: string]: {
                        idle_lobbies?: {
                            min: number;
                            max: number;
                        } | null;
                        tier?: string | null;
                    };
                } | null;
                tier?: string | null;
            } | null;
            scripts?: {
                [key: string]: string;
            } | null;
        };
        VersionFull: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /** @description as given when created, or resolved with ?resolved=true */
            config: {
                [key: string]: unknown;
            };
        };
        VersionList: {
            versions: components["schemas"]["VersionSummary"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        VersionSummary: {
            /**
             * Format: uuid
             * @description a UUID
             */
            version_id: string;
            display_name: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
        };
        VersionValidationResult: {
            /** @description the first 100 errors found, in a stable order */
            errors: components["schemas"]["ValidationError"][];
            /** @description how many errors were found; more than errors holds when over 100 */
            error_count: number;
        };
        Watch: {
            /** @description pass as watch_index to wait for the next change */
            index: string;
        };
        Webhook: {
            /**
             * Format: uuid
             * @description the endpoint's id
             */
            webhook_id: string;
            /**
             * Format: uuid
             * @description the game whose events it hears (a game endpoint)
             */
            game_id?: string;
            /**
             * Format: uuid
             * @description the team whose games' events it hears (a team endpoint)
             */
            team_id?: string;
            url: string;
            events: ("lobby.created" | "lobby.stopped" | "lobby.failed" | "build.completed" | "version.deployed" | "plan.changed" | "member.joined")[];
            description: string;
            enabled: boolean;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            update_ts: string;
        };
        WebhookAttempt: {
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            ts: string;
            /** @description the receiver's HTTP status */
            status_code?: number;
            /** @description why no status came back (timeout, refused address, …) */
            error?: string;
            duration_ms: number;
        };
        WebhookDelivery: {
            /**
             * Format: uuid
             * @description the delivery's id (the Gcm-Delivery-Id header)
             */
            delivery_id: string;
            /**
             * Format: uuid
             * @description the event's id (the same for every endpoint told of it)
             */
            event_id: string;
            event_type: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            create_ts: string;
            state: "pending" | "delivered" | "failed";
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            next_attempt_ts?: string;
            /**
             * Format: date-time
             * @description RFC 3339 with milliseconds, UTC
             */
            delivered_ts?: string;
            /** @description oldest first */
            attempts: components["schemas"]["WebhookAttempt"][];
            /** @description the JSON body sent */
            payload: unknown;
        };
        WebhookDeliveryList: {
            /** @description newest first */
            deliveries: components["schemas"]["WebhookDelivery"][];
            /** @description present only when more items follow: pass it as `cursor` for the next page */
            cursor?: string;
        };
        WebhookList: {
            webhooks: components["schemas"]["Webhook"][];
        };
        WebhookQueuedResponse: {
            /**
             * Format: uuid
             * @description the delivery queued
             */
            delivery_id: string;
        };
        WebhookResponse: {
            webhook: components["schemas"]["Webhook"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type SchemaAuditActor = components['schemas']['AuditActor'];
export type SchemaAuditEvent = components['schemas']['AuditEvent'];
export type SchemaAuditList = components['schemas']['AuditList'];
export type SchemaBuild = components['schemas']['Build'];
export type SchemaBuildList = components['schemas']['BuildList'];
export type SchemaCdnAuthTypeBody = components['schemas']['CdnAuthTypeBody'];
export type SchemaCdnAuthUserBody = components['schemas']['CdnAuthUserBody'];
export type SchemaCompleteDeviceLinkBody = components['schemas']['CompleteDeviceLinkBody'];
export type SchemaCompleteSetupBody = components['schemas']['CompleteSetupBody'];
export type SchemaCompleteSetupResponse = components['schemas']['CompleteSetupResponse'];
export type SchemaContainerRuntime = components['schemas']['ContainerRuntime'];
export type SchemaCreateCustomLobbyBody = components['schemas']['CreateCustomLobbyBody'];
export type SchemaCreateDevelopmentTokenBody = components['schemas']['CreateDevelopmentTokenBody'];
export type SchemaCreateGameBody = components['schemas']['CreateGameBody'];
export type SchemaCreateGameResponse = components['schemas']['CreateGameResponse'];
export type SchemaCreateLobbyBody = components['schemas']['CreateLobbyBody'];
export type SchemaCreateLobbyResponse = components['schemas']['CreateLobbyResponse'];
export type SchemaCreateNamespaceBody = components['schemas']['CreateNamespaceBody'];
export type SchemaCreateNamespaceResponse = components['schemas']['CreateNamespaceResponse'];
export type SchemaCreateTeamBody = components['schemas']['CreateTeamBody'];
export type SchemaCreateTeamResponse = components['schemas']['CreateTeamResponse'];
export type SchemaCreateVersionResponse = components['schemas']['CreateVersionResponse'];
export type SchemaCreateWebhookBody = components['schemas']['CreateWebhookBody'];
export type SchemaCreateWebhookResponse = components['schemas']['CreateWebhookResponse'];
export type SchemaDeleteMatchmakerLobbyResponse = components['schemas']['DeleteMatchmakerLobbyResponse'];
export type SchemaDevelopmentLobbyPort = components['schemas']['DevelopmentLobbyPort'];
export type SchemaDevelopmentPort = components['schemas']['DevelopmentPort'];
export type SchemaDeviceLinkResult = components['schemas']['DeviceLinkResult'];
export type SchemaDomainPublicAuthBody = components['schemas']['DomainPublicAuthBody'];
export type SchemaErrorBody = components['schemas']['ErrorBody'];
export type SchemaExportLobbyHistoryBody = components['schemas']['ExportLobbyHistoryBody'];
export type SchemaExportLobbyHistoryResponse = components['schemas']['ExportLobbyHistoryResponse'];
export type SchemaExportLobbyLogsBody = components['schemas']['ExportLobbyLogsBody'];
export type SchemaExportLobbyLogsResponse = components['schemas']['ExportLobbyLogsResponse'];
export type SchemaFailedLobby = components['schemas']['FailedLobby'];
export type SchemaFindLobbyBody = components['schemas']['FindLobbyBody'];
export type SchemaGameBilling = components['schemas']['GameBilling'];
export type SchemaGameFull = components['schemas']['GameFull'];
export type SchemaGameList = components['schemas']['GameList'];
export type SchemaGameSummary = components['schemas']['GameSummary'];
export type SchemaGetAnalyticsMatchmakerLiveResponse = components['schemas']['GetAnalyticsMatchmakerLiveResponse'];
export type SchemaGetBuildResponse = components['schemas']['GetBuildResponse'];
export type SchemaGetGameResponse = components['schemas']['GetGameResponse'];
export type SchemaGetLobbyLogsResponse = components['schemas']['GetLobbyLogsResponse'];
export type SchemaGetLobbyResponse = components['schemas']['GetLobbyResponse'];
export type SchemaGetNamespaceResponse = components['schemas']['GetNamespaceResponse'];
export type SchemaGetVersionResponse = components['schemas']['GetVersionResponse'];
export type SchemaHostNetworkingBody = components['schemas']['HostNetworkingBody'];
export type SchemaInspectResponse = components['schemas']['InspectResponse'];
export type SchemaJoinLobby = components['schemas']['JoinLobby'];
export type SchemaJoinLobbyAnswer = components['schemas']['JoinLobbyAnswer'];
export type SchemaJoinLobbyBody = components['schemas']['JoinLobbyBody'];
export type SchemaJoinPlayer = components['schemas']['JoinPlayer'];
export type SchemaJoinPort = components['schemas']['JoinPort'];
export type SchemaListLobbiesResponse = components['schemas']['ListLobbiesResponse'];
export type SchemaListRegionsResponse = components['schemas']['ListRegionsResponse'];
export type SchemaListedLobby = components['schemas']['ListedLobby'];
export type SchemaLobbyCallAnswer = components['schemas']['LobbyCallAnswer'];
export type SchemaLobbyEventBody = components['schemas']['LobbyEventBody'];
export type SchemaLobbyList = components['schemas']['LobbyList'];
export type SchemaLobbyResourceSample = components['schemas']['LobbyResourceSample'];
export type SchemaLobbyResources = components['schemas']['LobbyResources'];
export type SchemaLobbyRunning = components['schemas']['LobbyRunning'];
export type SchemaLobbySummary = components['schemas']['LobbySummary'];
export type SchemaLobbySummaryAnalytics = components['schemas']['LobbySummaryAnalytics'];
export type SchemaMatchmakerConfigBody = components['schemas']['MatchmakerConfigBody'];
export type SchemaNamespaceFull = components['schemas']['NamespaceFull'];
export type SchemaNamespaceList = components['schemas']['NamespaceList'];
export type SchemaNamespaceRollout = components['schemas']['NamespaceRollout'];
export type SchemaNamespaceSummary = components['schemas']['NamespaceSummary'];
export type SchemaPartsResponse = components['schemas']['PartsResponse'];
export type SchemaPatchTagsBody = components['schemas']['PatchTagsBody'];
export type SchemaPlayerTokenBody = components['schemas']['PlayerTokenBody'];
export type SchemaPrepareAvatarBody = components['schemas']['PrepareAvatarBody'];
export type SchemaPrepareAvatarResponse = components['schemas']['PrepareAvatarResponse'];
export type SchemaPrepareBuildBody = components['schemas']['PrepareBuildBody'];
export type SchemaPrepareBuildResponse = components['schemas']['PrepareBuildResponse'];
export type SchemaPrepareDeviceLinkResponse = components['schemas']['PrepareDeviceLinkResponse'];
export type SchemaPresignedRequest = components['schemas']['PresignedRequest'];
export type SchemaRegionInfo = components['schemas']['RegionInfo'];
export type SchemaRegionProblem = components['schemas']['RegionProblem'];
export type SchemaRegionsResponse = components['schemas']['RegionsResponse'];
export type SchemaRolloutGroup = components['schemas']['RolloutGroup'];
export type SchemaRotateWebhookSecretResponse = components['schemas']['RotateWebhookSecretResponse'];
export type SchemaSetGameTeamBody = components['schemas']['SetGameTeamBody'];
export type SchemaSetLobbyClosedBody = components['schemas']['SetLobbyClosedBody'];
export type SchemaSetNamespaceVersionBody = components['schemas']['SetNamespaceVersionBody'];
export type SchemaSetupStatusBody = components['schemas']['SetupStatusBody'];
export type SchemaSetupStatusResponse = components['schemas']['SetupStatusResponse'];
export type SchemaTokenList = components['schemas']['TokenList'];
export type SchemaTokenResponse = components['schemas']['TokenResponse'];
export type SchemaTokenSummary = components['schemas']['TokenSummary'];
export type SchemaUpdateGameBody = components['schemas']['UpdateGameBody'];
export type SchemaUpdatePlanBody = components['schemas']['UpdatePlanBody'];
export type SchemaUpdateWebhookBody = components['schemas']['UpdateWebhookBody'];
export type SchemaValidateDevelopmentTokenBody = components['schemas']['ValidateDevelopmentTokenBody'];
export type SchemaValidateGameBody = components['schemas']['ValidateGameBody'];
export type SchemaValidationError = components['schemas']['ValidationError'];
export type SchemaValidationResult = components['schemas']['ValidationResult'];
export type SchemaVersionBody = components['schemas']['VersionBody'];
export type SchemaVersionConfig = components['schemas']['VersionConfig'];
export type SchemaVersionFull = components['schemas']['VersionFull'];
export type SchemaVersionList = components['schemas']['VersionList'];
export type SchemaVersionSummary = components['schemas']['VersionSummary'];
export type SchemaVersionValidationResult = components['schemas']['VersionValidationResult'];
export type SchemaWatch = components['schemas']['Watch'];
export type SchemaWebhook = components['schemas']['Webhook'];
export type SchemaWebhookAttempt = components['schemas']['WebhookAttempt'];
export type SchemaWebhookDelivery = components['schemas']['WebhookDelivery'];
export type SchemaWebhookDeliveryList = components['schemas']['WebhookDeliveryList'];
export type SchemaWebhookList = components['schemas']['WebhookList'];
export type SchemaWebhookQueuedResponse = components['schemas']['WebhookQueuedResponse'];
export type SchemaWebhookResponse = components['schemas']['WebhookResponse'];
export type $defs = Record<string, never>;
export interface operations {
    "games.validateGame": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name_id": "my-game",
                 *       "display_name": "My Game"
                 *     }
                 */
                "application/json": components["schemas"]["ValidateGameBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationResult"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.getGames": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GameList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.createGame": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateGameBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateGameResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.getGameById": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetGameResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.deleteGame": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.updateGame": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "example"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateGameBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.setGameHostNetworking": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": true
                 *     }
                 */
                "application/json": components["schemas"]["HostNetworkingBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.versions.validateGameVersion": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "v1.0.0",
                 *       "config": {
                 *         "matchmaker": {
                 *           "game_modes": {
                 *             "default": {
                 *               "max_players": 8,
                 *               "container": {
                 *                 "image_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f",
                 *                 "ports": {
                 *                   "game": {
                 *                     "port": 7777,
                 *                     "protocol": "udp"
                 *                   }
                 *                 }
                 *               }
                 *             }
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["VersionBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VersionValidationResult"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.versions.listGameVersions": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VersionList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.versions.createGameVersion": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "v1.0.0",
                 *       "config": {
                 *         "matchmaker": {
                 *           "game_modes": {
                 *             "default": {
                 *               "max_players": 8,
                 *               "container": {
                 *                 "image_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f",
                 *                 "ports": {
                 *                   "game": {
                 *                     "port": 7777,
                 *                     "protocol": "udp"
                 *                   }
                 *                 }
                 *               }
                 *             }
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["VersionBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateVersionResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.versions.getGameVersionById": {
        parameters: {
            query?: {
                /** @description true: every game mode with its defaults and fallbacks applied */
                resolved?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                version_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetVersionResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "cloud.regions.listRegions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegionsResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.listGameNamespaces": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.createGameNamespace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name_id": "prod",
                 *       "display_name": "Production",
                 *       "version_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f"
                 *     }
                 */
                "application/json": components["schemas"]["CreateNamespaceBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateNamespaceResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.getGameNamespaceById": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetNamespaceResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.deleteGameNamespace": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.updateGameNamespaceVersion": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "version_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f"
                 *     }
                 */
                "application/json": components["schemas"]["SetNamespaceVersionBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.updateGameNamespaceMatchmakerConfig": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lobby_count_max": 100,
                 *       "max_players": 8
                 *     }
                 */
                "application/json": components["schemas"]["MatchmakerConfigBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.updateNamespaceCdnAuthUser": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user": "tester",
                 *       "password": "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"
                 *     }
                 */
                "application/json": components["schemas"]["CdnAuthUserBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.setNamespaceCdnAuthType": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "auth_type": "basic"
                 *     }
                 */
                "application/json": components["schemas"]["CdnAuthTypeBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.toggleNamespaceDomainPublicAuth": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": true
                 *     }
                 */
                "application/json": components["schemas"]["DomainPublicAuthBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.removeNamespaceCdnAuthUser": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
                user: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.logs.listNamespaceLobbies": {
        parameters: {
            query?: {
                /** @description RFC 3339; lobbies created strictly before it (default: now) */
                before_create_ts?: string;
                /** @description with before_create_ts, continue inside one millisecond: lobbies at that create_ts with a smaller lobby_id come next */
                before_lobby_id?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.logs.createNamespaceLobby": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lobby_group_name_id": "default",
                 *       "region_id": "lnd-atl"
                 *     }
                 */
                "application/json": components["schemas"]["CreateLobbyBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateLobbyResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.logs.getNamespaceLobby": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetLobbyResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.logs.recordNamespaceLobbyEvent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LobbyEventBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description an empty object, as the original API answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyCallAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.setClosed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "is_closed": true
                 *     }
                 */
                "application/json": components["schemas"]["SetLobbyClosedBody"];
            };
        };
        responses: {
            /** @description an empty object, as the original API answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyCallAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.players.connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "player_token": "example"
                 *     }
                 */
                "application/json": components["schemas"]["PlayerTokenBody"];
            };
        };
        responses: {
            /** @description an empty object, as the original API answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyCallAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.players.disconnected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "player_token": "example"
                 *     }
                 */
                "application/json": components["schemas"]["PlayerTokenBody"];
            };
        };
        responses: {
            /** @description an empty object, as the original API answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyCallAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.regions.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListRegionsResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "game_modes": [
                 *         "example"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["FindLobbyBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinLobbyAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.join": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lobby_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f"
                 *     }
                 */
                "application/json": components["schemas"]["JoinLobbyBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinLobbyAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "game_mode": "example"
                 *     }
                 */
                "application/json": components["schemas"]["CreateCustomLobbyBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinLobbyAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.list": {
        parameters: {
            query?: {
                include_state?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListLobbiesResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.setState": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /** @example {} */
                "application/json": unknown;
            };
        };
        responses: {
            /** @description an empty object, as the original API answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyCallAnswer"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "matchmaker.lobbies.getState": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a lobby of the caller’s namespace */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.matchmaker.deleteMatchmakerLobby": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteMatchmakerLobbyResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.matchmaker.getLobbyResources": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LobbyResources"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.getNamespaceRollout": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceRollout"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.analytics.getAnalyticsMatchmakerLive": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetAnalyticsMatchmakerLiveResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.matchmaker.getLobbyLogs": {
        parameters: {
            query: {
                /** @description the lobby's standard output or standard error */
                stream: "std_out" | "std_err";
                /** @description block until the data changes from this index (at most the watch timeout) */
                watch_index?: string;
                /** @description a `cursor` an earlier page returned: the page of lines just before it (older) */
                cursor?: string;
                /** @description lines in the page, 1 to 1000 (default 256) */
                limit?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetLobbyLogsResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.matchmaker.exportLobbyLogs": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                lobby_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "stream": "std_out"
                 *     }
                 */
                "application/json": components["schemas"]["ExportLobbyLogsBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportLobbyLogsResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.matchmaker.exportMatchmakerLobbyHistory": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query_start": 0,
                 *       "query_end": 0
                 *     }
                 */
                "application/json": components["schemas"]["ExportLobbyHistoryBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportLobbyHistoryResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.prepare": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "server 1.0.0",
                 *       "image_file": {
                 *         "path": "server.tar",
                 *         "content_type": "application/x-tar",
                 *         "content_length": 73400320
                 *       },
                 *       "tags": {
                 *         "channel": "beta"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PrepareBuildBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrepareBuildResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.getUploadParts": {
        parameters: {
            query?: {
                /** @description first part number to presign (default 1); up to 100 parts from it are answered */
                from_part?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
                /** @description a UUID */
                build_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartsResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.complete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
                /** @description a UUID */
                build_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.get": {
        parameters: {
            query?: {
                /** @description JSON object of string → string: builds having every pair */
                tags_json?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
                /** @description a UUID */
                build_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetBuildResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.list": {
        parameters: {
            query?: {
                /** @description JSON object of string → string: builds having every pair */
                tags_json?: string;
                /** @description builds on this page, 1 to 1000 (default 1000) */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BuildList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "builds.patchTags": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                environment_id: string;
                /** @description a UUID */
                build_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "tags": {
                 *         "current": "true"
                 *       },
                 *       "exclusive_tags": [
                 *         "current"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["PatchTagsBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.tokens.createCloudToken": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.tokens.createReporterToken": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.tokens.createGameNamespaceTokenPublic": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.tokens.createGameNamespaceTokenDevelopment": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "hostname": "example"
                 *     }
                 */
                "application/json": components["schemas"]["CreateDevelopmentTokenBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.namespaces.tokens.validateGameNamespaceTokenDevelopment": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                namespace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "hostname": "example",
                 *       "lobby_ports": [
                 *         {
                 *           "label": "example",
                 *           "proxy_protocol": "http"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ValidateDevelopmentTokenBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationResult"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.tokens.listTokens": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "tokens.revokeToken": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "auth.inspect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InspectResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.avatars.prepareCustomAvatarUpload": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "path": "avatar.png",
                 *       "mime": "image/png",
                 *       "content_length": 48213
                 *     }
                 */
                "application/json": components["schemas"]["PrepareAvatarBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrepareAvatarResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.avatars.completeCustomAvatarUpload": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
                /** @description a UUID */
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "cloud.uploads.completeUpload": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "avatars.getAvatar": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the PNG or JPEG image */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                    "image/jpeg": string;
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "downloads.getDownload": {
        parameters: {
            query: {
                /** @description the stored object, as signed */
                key: string;
                /** @description the Content-Type it is served with */
                type: string;
                /** @description epoch seconds after which the URL is refused (decimal, no leading zeros) */
                expires: string;
                /** @description HMAC-SHA256 of the values above and the file name */
                sig: string;
            };
            header?: never;
            path: {
                /** @description the name the file is saved as */
                filename: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file, as an attachment of the type the URL names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "devices.links.get": {
        parameters: {
            query: {
                /** @description the device_link_token (a JWT) that prepare returned */
                device_link_token: string;
                /** @description block until the data changes from this index (at most the watch timeout) */
                watch_index?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeviceLinkResult"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "devices.links.prepare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrepareDeviceLinkResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "devices.links.complete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "device_link_token": "example",
                 *       "game_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f"
                 *     }
                 */
                "application/json": components["schemas"]["CompleteDeviceLinkBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "devices.links.page": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the device_link_token (a JWT) that prepare returned */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the HTML page (also for a link that is expired, 410, used, or not valid, 400) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description the HTML page (also for a link that is expired, 410, used, or not valid, 400) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description the HTML page (also for a link that is expired, 410, used, or not valid, 400) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.billing.get": {
        parameters: {
            query?: {
                /** @description block until the data changes from this index (at most the watch timeout) */
                watch_index?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GameBilling"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.billing.updatePlan": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "plan": "indie"
                 *     }
                 */
                "application/json": components["schemas"]["UpdatePlanBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.createTeam": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme Games",
                 *       "slug": "acme",
                 *       "owner_email": "lead@acme.example",
                 *       "owner_name": "Lee Lead"
                 *     }
                 */
                "application/json": components["schemas"]["CreateTeamBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateTeamResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.setGameTeam": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f"
                 *     }
                 */
                "application/json": components["schemas"]["SetGameTeamBody"];
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "setup.getStatus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "secret": "example"
                 *     }
                 */
                "application/json": components["schemas"]["SetupStatusBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SetupStatusResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "setup.complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "secret": "Xq3v9mK2pL7wR1tY5uI8oP4aS6dF0gH2jK4lZ7xC9vB",
                 *       "team_name": "Acme Games",
                 *       "team_slug": "acme-games",
                 *       "name": "Nina Lead",
                 *       "email": "lead@acme.example",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["CompleteSetupBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompleteSetupResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.audit.list": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.audit.list": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description the team's id (POST /cloud/teams answers it) */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "audit.list": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description a UUID */
                game_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/gcm",
                 *       "events": [
                 *         "lobby.stopped",
                 *         "build.completed"
                 *       ],
                 *       "description": "CI dashboard"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateWebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.rotateSecret": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotateWebhookSecretResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.ping": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookQueuedResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.listDeliveries": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "games.webhooks.redeliver": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the game's id */
                game_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
                /** @description the delivery's id (the delivery log lists them) */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookQueuedResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the team's id (POST /cloud/teams answers it) */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the team's id (POST /cloud/teams answers it) */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/gcm",
                 *       "events": [
                 *         "lobby.stopped",
                 *         "build.completed"
                 *       ],
                 *       "description": "CI dashboard"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateWebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookBody"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.rotateSecret": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotateWebhookSecretResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.ping": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookQueuedResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.listDeliveries": {
        parameters: {
            query?: {
                /** @description items on this page, 1 to 1000 */
                limit?: string;
                /** @description the `cursor` of the previous page of this list, unchanged; absent for the first page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "teams.webhooks.redeliver": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description the team's id */
                team_id: string;
                /** @description the endpoint's id */
                webhook_id: string;
                /** @description the delivery's id (the delivery log lists them) */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookQueuedResponse"];
                };
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 401 no token or one that is not valid, expired or revoked; 403 not this token; 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    "uploads.putUploadPart": {
        parameters: {
            query: {
                /** @description epoch seconds after which the URL is refused (decimal, no leading zeros) */
                expires: string;
                /** @description exact body length in bytes (decimal, no leading zeros) */
                length: string;
                /** @description HMAC-SHA256 of the values above */
                sig: string;
            };
            header?: never;
            path: {
                /** @description a UUID */
                upload_id: string;
                /** @description part number, from 1 */
                part: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no body: the bytes are stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request was refused; the body's `code` says why (the README lists every code), for example: 400 a malformed request or a rule it breaks (`VALIDATION_ERROR` lists each); 404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; 429 too many requests from this address (`Retry-After` says when to try again). */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The service failed (500) or is shutting down (503); `ray_id` names the log line. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
