/**
 * The `gcm` binary end to end: the real program in its own process against a real service listening on a
 * port (SQLite, or PostgreSQL with GCM_TEST_DATABASE_URL). Login through a device link that a signed-in
 * person completes, the stored token's file mode, the resource commands, config validation with the file's
 * line and column, lobbies (and --follow), exit codes and --json output.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { finished, lineReader, runCli, startCli } from '../helpers/cli.js';
import { untilWaiting } from '../helpers/device-links.js';
import { startListening } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';
import { sqliteOnly } from '../helpers/stores.js';

const VALID_CONFIG = `# a version config, as a studio keeps it next to its code
kv: {}
engine:
  html5: {}
`;

/** Right by itself; only the service can tell that no such build exists. */
const UNKNOWN_BUILD_CONFIG = `matchmaker:
  game_modes:
    default:
      max_players: 8
      docker:
        image_id: 0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f
`;

const BAD_CONFIG = `matchmaker:
  game_modes:
    default:
      max_players: 8
      docker:
        image_id: 0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f
        ports:
          game:
            port: 99999
`;

// The CLI is a client of the HTTP interface: what it does is the same whichever store the service runs on,
// which the module suites cover on both; getting-started.test.ts and builds.test.ts still drive gcm on
// PostgreSQL (the latter against real S3 there).
describe('gcm, the command-line tool', sqliteOnly, () => {
  let svc: TestService;
  let publicUrl: string;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  let dir: string;
  /** What every run gets: its own config dir, the service's URL, and (unless a test says) the cloud token. */
  let env: Record<string, string>;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    game = await createGameFixture(svc, 'cli-game');
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-cli-'));
    env = { GCM_CONFIG_DIR: path.join(dir, 'config'), GCM_URL: publicUrl, GCM_TOKEN: game.cloudToken };
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function file(name: string, text: string): string {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  }

  it('logs in through a device link a signed-in person completes, and stores the token 0600', async () => {
    const team = await newTeam(svc, 'cli-team');
    await giveGame(svc, game.gameId, team.teamId);
    const person = await addMember(svc, team, 'dev@cli.example', 'member');
    const configDir = path.join(dir, 'login-config');
    const child = startCli(['login', '--url', publicUrl, '--no-open', '--json'], {
      GCM_CONFIG_DIR: configDir,
    });
    const line = lineReader(child);
    const first = JSON.parse(await line()) as { device_link_url: string; device_link_token: string };
    assert.ok(first.device_link_url.startsWith(`${publicUrl}/devices/link/`), first.device_link_url);
    // The tool waits on the link with watch_index: one request held open by the service, no polling loop.
    await untilWaiting(svc);
    const done = await svc.call('POST', '/cloud/devices/links/complete', {
      token: null,
      headers: asPerson(svc, person),
      body: { device_link_token: first.device_link_token, game_id: game.gameId },
    });
    assert.equal(done.statusCode, 204, done.body);
    const result = JSON.parse(await line()) as { logged_in: boolean; game_id: string };
    assert.deepEqual(result, { logged_in: true, url: publicUrl, game_id: game.gameId });
    assert.equal((await finished(child)).code, 0);

    assert.equal(statSync(configDir).mode & 0o777, 0o700);
    const credentials = path.join(configDir, 'credentials.json');
    assert.equal(statSync(credentials).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(credentials, 'utf8')) as {
      current: string;
      services: Record<string, { token: string }>;
    };
    assert.equal(stored.current, publicUrl);
    const token = stored.services[publicUrl]?.token ?? '';

    // The stored login is used with no GCM_URL or GCM_TOKEN at all.
    const who = await runCli(['whoami', '--json'], { GCM_CONFIG_DIR: configDir });
    assert.equal(who.code, 0, who.stderr);
    const agent = (JSON.parse(who.stdout) as { agent: { game_cloud: { game_id: string; token_id: string } } })
      .agent;
    assert.equal(agent.game_cloud.game_id, game.gameId);
    const tokens = await svc.call('GET', `/cloud/games/${game.gameId}/tokens`);
    const minted = tokens
      .json<{ tokens: { token_id: string; user_id?: string }[] }>()
      .tokens.find((t) => t.token_id === agent.game_cloud.token_id);
    assert.ok(minted?.user_id !== undefined, 'minted on the person’s behalf');

    const out = await runCli(['logout'], { GCM_CONFIG_DIR: configDir });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /Logged out .* \(its token is revoked\)/);
    const refused = await svc.call('GET', '/cloud/auth/inspect', { token });
    assert.equal(refused.statusCode, 401);
    const again = await runCli(['whoami'], { GCM_CONFIG_DIR: configDir, GCM_URL: publicUrl });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not logged in/);
    assert.match(again.stderr, /hint: run `gcm login`/);
  });

  it('creates and lists versions, namespaces and tokens, and sets the plan', async () => {
    const config = file('gcm.yaml', VALID_CONFIG);
    const made = await runCli(['--json', 'versions', 'create', '--config', config, '--name', 'v2'], env);
    assert.equal(made.code, 0, made.stdout + made.stderr);
    const versionId = (JSON.parse(made.stdout) as { version_id: string }).version_id;
    const versions = JSON.parse((await runCli(['--json', 'versions', 'list'], env)).stdout) as {
      versions: { version_id: string; display_name: string }[];
    };
    assert.equal(versions.versions[0]?.version_id, versionId, 'newest first');

    const ns = await runCli(['--json', 'namespaces', 'create', 'staging', '--version', game.versionId], env);
    assert.equal(ns.code, 0, ns.stderr);
    assert.match((JSON.parse(ns.stdout) as { namespace_id: string }).namespace_id, /^[0-9a-f-]{36}$/);
    const moved = await runCli(['namespaces', 'set-version', 'staging', versionId], env);
    assert.equal(moved.code, 0, moved.stderr);
    const shown = JSON.parse((await runCli(['--json', 'namespaces', 'show', 'staging'], env)).stdout) as {
      namespace: { version_id: string; name_id: string };
    };
    assert.deepEqual([shown.namespace.name_id, shown.namespace.version_id], ['staging', versionId]);
    const table = await runCli(['namespaces', 'list'], env);
    assert.match(table.stdout, /^NAME ID\s+NAMESPACE ID/);
    assert.match(table.stdout, /\nstaging\s+[0-9a-f-]{36}/);

    // Minting is the operator's (or an admin's, signed in or logged in with gcm): the fixture's cloud token,
    // the operator's, cannot make more of itself.
    const operator = { ...env, GCM_TOKEN: svc.operatorToken, GCM_GAME: 'cli-game' };
    const minted = JSON.parse((await runCli(['--json', 'tokens', 'create'], operator)).stdout) as {
      token: string;
      token_id: string;
    };
    const revoked = await runCli(['tokens', 'revoke', minted.token_id], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await svc.call('GET', '/cloud/auth/inspect', { token: minted.token })).statusCode, 401);
    const listed = JSON.parse((await runCli(['--json', 'tokens', 'list'], env)).stdout) as {
      tokens: { token_id: string; revoke_ts: string | null }[];
    };
    assert.notEqual(listed.tokens.find((t) => t.token_id === minted.token_id)?.revoke_ts, null);

    // A game client's tokens: public and development, minted with the game's own cloud token.
    const publicToken = await runCli(['--json', 'tokens', 'create', 'public', '--namespace', 'prod'], env);
    assert.equal(publicToken.code, 0, publicToken.stdout + publicToken.stderr);
    const clientToken = (JSON.parse(publicToken.stdout) as { token: string }).token;
    const clientRegions = await svc.call('GET', '/matchmaker/regions', { token: clientToken });
    assert.equal(clientRegions.statusCode, 200, clientRegions.body);
    assert.equal(
      (await svc.call('GET', `/cloud/games/${game.gameId}`, { token: clientToken })).statusCode,
      403,
    );
    const development = await runCli(
      ['--json', 'tokens', 'create', 'development', '--namespace', 'prod', '--hostname', '10.0.0.5'].concat([
        '--port',
        'game=7777/udp',
        '--port',
        'web=8000-8010/http',
      ]),
      env,
    );
    assert.equal(development.code, 0, development.stdout + development.stderr);
    const devId = (JSON.parse(development.stdout) as { token_id: string }).token_id;
    const devRow = await svc.deps.db
      .selectFrom('tokens')
      .select('development_json')
      .where('token_id', '=', devId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(devRow.development_json ?? 'null'), {
      hostname: '10.0.0.5',
      ports: {
        game: { port: 7777, protocol: 'udp' },
        web: { port_range: { min: 8000, max: 8010 }, protocol: 'http' },
      },
    });
    const badHost = await runCli(
      ['tokens', 'create', 'development', '--namespace', 'prod', '--hostname', 'no way'],
      env,
    );
    assert.notEqual(badHost.code, 0);
    assert.match(badHost.stderr, /VALIDATION_ERROR|hostname/);
    const badPort = await runCli(
      [
        'tokens',
        'create',
        'development',
        '--namespace',
        'prod',
        '--hostname',
        'dev',
        '--port',
        'game=7777/quic',
      ],
      env,
    );
    assert.notEqual(badPort.code, 0);
    assert.match(badPort.stderr, /label=port\/protocol/);

    const plan = await runCli(['billing', 'set-plan', 'indie'], env);
    assert.equal(plan.code, 0, plan.stderr);
    const billing = JSON.parse((await runCli(['--json', 'billing', 'show'], env)).stdout) as { plan: string };
    assert.equal(billing.plan, 'indie');
    const regions = JSON.parse((await runCli(['--json', 'regions'], env)).stdout) as {
      regions: { name_id: string }[];
    };
    assert.ok(regions.regions.some((r) => r.name_id === 'lnd-atl'));
  });

  it('validates a config offline, naming the file’s line and column of each problem', async () => {
    const bad = file('bad.yaml', BAD_CONFIG);
    const offline = await runCli(['config', 'validate', bad], {
      GCM_CONFIG_DIR: env.GCM_CONFIG_DIR as string,
    });
    assert.equal(offline.code, 1, offline.stderr);
    // `port: 99999` is on line 9, column 19 (the value).
    assert.equal(offline.stdout.split('\n')[0]?.startsWith(`${bad}:9:19: `), true, offline.stdout);
    const json = await runCli(['--json', 'config', 'validate', bad], {});
    const report = JSON.parse(json.stdout) as {
      valid: boolean;
      errors: { line: number; column: number; source: string }[];
    };
    assert.equal(report.valid, false);
    assert.deepEqual(
      [report.errors[0]?.line, report.errors[0]?.column, report.errors[0]?.source],
      [9, 19, 'offline'],
    );

    const good = file('good.json', JSON.stringify({ kv: {}, engine: { html5: {} } }));
    const ok = await runCli(['config', 'validate', good], {});
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /valid \(checked offline\)/);

    // A YAML syntax error is a problem in the file like any other (exit 1, at its place), not wrong use.
    const broken = file('broken.yaml', 'matchmaker:\n  game_modes: [\n');
    const syntax = await runCli(['config', 'validate', broken], {});
    assert.equal(syntax.code, 1, syntax.stdout + syntax.stderr);
    assert.deepEqual(syntax.stdout.trim().split('\n'), [
      `${broken}:3:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      `1 problem(s) in ${broken}`,
    ]);
    const syntaxJson = await runCli(['--json', 'config', 'validate', broken], {});
    assert.equal(syntaxJson.code, 1);
    const syntaxReport = JSON.parse(syntaxJson.stdout) as { valid: boolean; errors: { line: number }[] };
    assert.deepEqual([syntaxReport.valid, syntaxReport.errors[0]?.line], [false, 3]);
    const missing = await runCli(['config', 'validate', path.join(dir, 'nowhere.yaml')], {});
    assert.equal(missing.code, 2, 'a file that is not there is wrong use');
    assert.match(missing.stderr, /^error: there is no file .*nowhere\.yaml\nhint: `gcm init` writes/);

    // Where the file is right but the service knows better (no such build), it says so, at the line.
    const unknownBuild = file('unknown-build.yaml', UNKNOWN_BUILD_CONFIG);
    const online = await runCli(['--json', 'config', 'validate', unknownBuild], env);
    assert.equal(online.code, 1, online.stderr);
    const found = (
      JSON.parse(online.stdout) as { errors: { path: string[]; source: string; line: number }[] }
    ).errors[0];
    assert.equal(found?.source, 'service');
    assert.ok(found?.path.includes('build-not-found'), JSON.stringify(found));
    assert.equal(found?.line, 6, 'the line of the image_id it names');
  });

  it('gcm init writes a commented gcm.yaml that config validate and deploy accept as it is', async () => {
    // Offline: no regions named (every one the service offers), and the file says so.
    const offlineFile = path.join(dir, 'init-offline', 'gcm.yaml');
    mkdirSync(path.dirname(offlineFile));
    const offline = await runCli(['init', offlineFile], { GCM_CONFIG_DIR: env.GCM_CONFIG_DIR as string });
    assert.equal(offline.code, 0, offline.stderr);
    const offlineText = readFileSync(offlineFile, 'utf8');
    assert.match(offlineText, /^# .*gcm init/m);
    assert.match(offlineText, /^ {6}# regions:$/m, 'regions left out, with an example in a comment');
    assert.doesNotMatch(offlineText, /^\s*image_id:/m, 'deploy fills in the build');
    const again = await runCli(['init', offlineFile], {});
    assert.equal(again.code, 2, 'an existing file is not overwritten');
    assert.match(again.stderr, /exists already\nhint: pass --force/);

    // Logged in: the service's regions, each named in the file.
    const fx = await createGameFixture(svc, 'cli-init-game');
    const ci = { ...env, GCM_TOKEN: fx.cloudToken };
    const configFile = path.join(dir, 'init-online.yaml');
    const made = await runCli(['init', configFile, '--game-mode', 'duel', '--port', '7000'], ci);
    assert.equal(made.code, 0, made.stderr);
    const regions = (await svc.call('GET', '/cloud/regions')).json<{ regions: { name_id: string }[] }>()
      .regions;
    assert.ok(regions.length > 0);
    const text = readFileSync(configFile, 'utf8');
    for (const region of regions) assert.match(text, new RegExp(`^ {8}${region.name_id}: \\{\\}$`, 'm'));
    assert.match(text, /^ {4}duel:$/m);
    assert.match(text, /^ {12}port: 7000$/m);
    assert.match(text, /idle_lobbies:\n {8}min: 1\n {8}max: 2/);
    // The isolated network, written out: host networking is never what a first config offers.
    assert.match(text, /^ {8}network_mode: bridge$/m);
    assert.doesNotMatch(text, /^\s*network_mode: host/m);

    // It names no image_id: validate checks it as deploy will use it, offline and with the service.
    const valid = await runCli(['config', 'validate', configFile], ci);
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
    assert.match(
      valid.stdout,
      /valid \(checked offline and by the service, as `gcm deploy IMAGE` will use it/,
    );
    const image = file('init-server.tar', 'a server image, as far as this test goes');
    const deployed = await runCli(
      ['--json', 'deploy', image, '--namespace', 'prod', '--config', configFile],
      ci,
    );
    assert.equal(deployed.code, 0, deployed.stdout + deployed.stderr);
    const { version_id: versionId } = JSON.parse(deployed.stdout) as { version_id: string };
    const version = await svc.call('GET', `/cloud/games/${fx.gameId}/versions/${versionId}?resolved=true`);
    const duel = version.json<{
      version: {
        config: { matchmaker: { game_modes: Record<string, { regions: Record<string, unknown> }> } };
      };
    }>().version.config.matchmaker.game_modes.duel;
    assert.deepEqual(Object.keys(duel?.regions ?? {}).sort(), regions.map((r) => r.name_id).sort());
  });

  it('checks a config meant for gcm deploy as deploy will use it, with hints that name gcm commands', async () => {
    // No image_id anywhere: deploy fills it in, so validate does too (today's service says "no-build").
    const deployConfig = file(
      'for-deploy.yaml',
      'matchmaker:\n  game_modes:\n    default:\n      max_players: 8\n      container:\n        ports:\n          game:\n            port: 7777\n            protocol: udp\n',
    );
    const valid = await runCli(['--json', 'config', 'validate', deployConfig], env);
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
    assert.deepEqual(JSON.parse(valid.stdout) as Record<string, unknown>, {
      file: deployConfig,
      valid: true,
      checked: 'offline and by the service',
      for_deploy: true,
      deploy_fills: ['default'],
      errors: [],
    });
    // One game mode names its build and one does not: a config for `versions create`, unless told.
    const mixed = file(
      'mixed.yaml',
      `matchmaker:\n  game_modes:\n    a:\n      max_players: 4\n      container:\n        image_id: ${'0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f'}\n    b:\n      max_players: 4\n      container: {}\n`,
    );
    const plain = await runCli(['config', 'validate', mixed, '--offline'], env);
    assert.equal(plain.code, 1, plain.stdout);
    assert.match(plain.stdout, /mixed\.yaml:7:5: .*no-build: .*`gcm builds push IMAGE --namespace NS`/);
    assert.match(plain.stdout, /`gcm config validate --for-deploy`/);
    assert.doesNotMatch(plain.stdout, /POST \/|PUT \//, 'no raw API calls');
    const asDeploy = await runCli(['config', 'validate', mixed, '--offline', '--for-deploy'], env);
    assert.equal(asDeploy.code, 0, asDeploy.stdout + asDeploy.stderr);
    assert.match(asDeploy.stdout, /game mode\(s\) b run the pushed build/);
    const region = file(
      'region.yaml',
      'matchmaker:\n  game_modes:\n    default:\n      max_players: 8\n      regions:\n        atlantis: {}\n      container: {}\n',
    );
    const online = await runCli(['config', 'validate', region], env);
    assert.equal(online.code, 1, online.stdout + online.stderr);
    assert.match(online.stdout, /atlantis.*\(`gcm regions` lists them\)/);
    assert.doesNotMatch(online.stdout, /GET \/cloud/);
  });

  it('names the game, team and person; a team admin’s login mints tokens, a member’s may not', async () => {
    const fx = await createGameFixture(svc, 'cli-admin-game');
    const team = await newTeam(svc, 'cli-admins');
    await giveGame(svc, fx.gameId, team.teamId);
    const people = {
      admin: await addMember(svc, team, 'ada@cli.example', 'admin'),
      member: await addMember(svc, team, 'mo@cli.example', 'member'),
    };
    /** `gcm login` as a person would: the page's link completed by them; answers the run's config dir and output. */
    const login = async (who: keyof typeof people) => {
      const configDir = path.join(dir, `login-${who}`);
      const child = startCli(['login', '--url', publicUrl, '--no-open'], { GCM_CONFIG_DIR: configDir });
      const line = lineReader(child);
      assert.match(await line(), /^Open this page to log in/);
      const linkUrl = (await line()).trim();
      await untilWaiting(svc);
      const done = await svc.call('POST', '/cloud/devices/links/complete', {
        token: null,
        headers: asPerson(svc, people[who]),
        body: { device_link_token: linkUrl.split('/').at(-1), game_id: fx.gameId },
      });
      assert.equal(done.statusCode, 204, done.body);
      const end = await finished(child);
      assert.equal(end.code, 0, end.stderr);
      return { env: { GCM_CONFIG_DIR: configDir }, stdout: end.stdout };
    };

    const admin = await login('admin');
    assert.match(
      admin.stdout,
      new RegExp(
        `Logged in to ${publicUrl}: game "Test Game" \\(cli-admin-game\\) of team "Team cli-admins", as ada <ada@cli\\.example> \\(admin\\)\\.`,
      ),
    );
    const who = await runCli(['whoami'], admin.env);
    assert.equal(who.code, 0, who.stderr);
    assert.match(
      who.stdout,
      /: game "Test Game" \(cli-admin-game\) of team "Team cli-admins", as ada <ada@cli\.example> \(admin\)\n/,
    );
    assert.match(who.stdout, /cloud token [0-9a-f-]{36} of game [0-9a-f-]{36}, expires /);

    // The admin's token mints cloud and reporter tokens, as the admin would in the dashboard.
    const cloud = await runCli(['--json', 'tokens', 'create'], admin.env);
    assert.equal(cloud.code, 0, cloud.stdout + cloud.stderr);
    const minted = JSON.parse(cloud.stdout) as { token: string };
    const inspect = (await svc.call('GET', '/cloud/auth/inspect', { token: minted.token })).json<{
      agent: { game_cloud: { game_id: string; minted_for: { email: string } } };
    }>();
    assert.equal(inspect.agent.game_cloud.game_id, fx.gameId);
    assert.equal(inspect.agent.game_cloud.minted_for.email, 'ada@cli.example', 'minted for the admin too');
    const reporter = await runCli(
      ['--json', 'tokens', 'create', '--reporter', '--namespace', 'prod'],
      admin.env,
    );
    assert.equal(reporter.code, 0, reporter.stdout + reporter.stderr);
    const reporterToken = (JSON.parse(reporter.stdout) as { token: string }).token;
    const reporterInspect = await svc.call('GET', '/cloud/auth/inspect', { token: reporterToken });
    assert.equal(
      reporterInspect.json<{ agent: { namespace_reporter: { namespace_id: string } } }>().agent
        .namespace_reporter.namespace_id,
      fx.namespaceId,
    );

    // A member's login token may not.
    const member = await login('member');
    assert.match(member.stdout, /as mo <mo@cli\.example> \(member\)\./);
    const refused = await runCli(['tokens', 'create', '--reporter', '--namespace', 'prod'], member.env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /error: .*admin role or stronger.*its person is member \(API_FORBIDDEN\)/);
  });

  it('lists lobbies newest first, and follows new ones and their changes', async () => {
    const reporter = (
      await svc.call('POST', `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/tokens/reporter`)
    ).json<{ token: string }>().token;
    const report = async (createTs: string) => {
      const res = await svc.call(
        'POST',
        `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies`,
        {
          token: reporter,
          body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', create_ts: createTs },
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ lobby_id: string }>().lobby_id;
    };
    // The service's clock stands at 2026-01-01T00:00:00Z: lobbies are reported as created before it.
    const older = await report('2025-12-31T23:59:50.000Z');
    const newer = await report('2025-12-31T23:59:51.000Z');
    const list = await runCli(['--json', 'lobbies', 'list', '--namespace', 'prod'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      (JSON.parse(list.stdout) as { lobbies: { lobby_id: string }[] }).lobbies.map((l) => l.lobby_id),
      [newer, older],
    );

    const child = startCli(
      ['--json', 'lobbies', 'list', '--namespace', 'prod', '--follow', '--interval-ms', '100'],
      env,
    );
    const line = lineReader(child);
    const shown = [JSON.parse(await line()), JSON.parse(await line())] as { lobby: { lobby_id: string } }[];
    assert.deepEqual(
      shown.map((e) => e.lobby.lobby_id),
      [older, newer],
    );
    const third = await report('2025-12-31T23:59:52.000Z');
    const added = JSON.parse(await line()) as { event: string; lobby: { lobby_id: string } };
    assert.deepEqual([added.event, added.lobby.lobby_id], ['lobby', third]);
    const started = await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies/${third}/events`,
      { token: reporter, body: { kind: 'start', ts: '2025-12-31T23:59:53.000Z' } },
    );
    assert.equal(started.statusCode, 204, started.body);
    const changed = JSON.parse(await line()) as {
      event: string;
      lobby: { lobby_id: string; start_ts: string };
    };
    assert.deepEqual([changed.event, changed.lobby.lobby_id], ['status', third]);
    child.kill('SIGINT');
    assert.equal((await finished(child)).code, 0);
  });

  it('exits 2 for wrong use, 1 for a refusal, and prints the service’s code and ray id', async () => {
    const version = await runCli(['--version'], {});
    assert.deepEqual([version.code, version.stdout.trim()], [0, '0.1.0']);
    assert.equal((await runCli(['--help'], {})).code, 0);
    assert.equal((await runCli(['no-such-command'], env)).code, 2);
    assert.equal((await runCli(['namespaces', 'create', 'x'], env)).code, 2, 'a required option is missing');
    assert.equal((await runCli(['billing', 'set-plan', 'platinum'], env)).code, 2);

    const forbidden = await runCli(['games', 'create', 'not-allowed'], env);
    assert.equal(forbidden.code, 1);
    assert.match(forbidden.stderr, /error: .+ \(API_FORBIDDEN\)/);
    assert.match(forbidden.stderr, /ray id: [0-9a-f-]{36}/);
    assert.match(forbidden.stderr, /hint: /);
    const json = await runCli(['--json', 'games', 'create', 'not-allowed'], env);
    const body = JSON.parse(json.stdout) as { code: string; status: number; ray_id: string };
    assert.deepEqual([body.code, body.status], ['API_FORBIDDEN', 403]);
    assert.match(body.ray_id, /^[0-9a-f-]{36}$/);

    const badToken = await runCli(['whoami'], { ...env, GCM_TOKEN: 'not-a-token' });
    assert.equal(badToken.code, 1);
    assert.match(badToken.stderr, /hint: log in again: `gcm login`/);
    const away = await runCli(['whoami'], { ...env, GCM_URL: 'http://127.0.0.1:9' });
    assert.equal(away.code, 1);
    assert.match(away.stderr, /could not reach/);
  });
});
