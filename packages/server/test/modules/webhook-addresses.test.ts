/**
 * Every IPv6 form that carries an IPv4 address, with an internal IPv4 (refused) and a public one (allowed):
 * checked where a tenant's URL is saved (through HTTP) and where a delivery resolves its host before
 * connecting (the `lookup` each delivery's request uses), so neither door lets `[2002:7f00:1::1]` reach
 * loopback as `127.0.0.1` could not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { publicLookup } from '../../src/lib/public-address.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
// Store-independent work (the validator, the worker pool, address and password checks): the SQLite run
// covers it, and the PostgreSQL run would only pay for it twice.
import { sqliteOnly } from '../helpers/stores.js';

/** [form, address (any spelling a URL or a resolver may give), internal?] */
const FORMS: [string, string, boolean][] = [
  ['6to4 of 127.0.0.1', '2002:7f00:1::1', true],
  ['6to4 of 10.0.0.1', '2002:a00:1::', true],
  ['6to4 of 169.254.169.254', '2002:a9fe:a9fe:1::1', true],
  ['6to4 of 8.8.8.8', '2002:808:808::1', false],
  ['IPv4-mapped 127.0.0.1', '::ffff:7f00:1', true],
  ['IPv4-mapped 169.254.169.254, dotted', '::ffff:169.254.169.254', true],
  ['IPv4-mapped 8.8.8.8', '::ffff:808:808', false],
  ['IPv4-translated 127.0.0.1', '::ffff:0:7f00:1', true],
  ['IPv4-translated 192.168.1.1, dotted', '::ffff:0:192.168.1.1', true],
  ['IPv4-translated 8.8.8.8', '::ffff:0:808:808', false],
  ['IPv4-compatible 127.0.0.1', '::7f00:1', true],
  ['IPv4-compatible 10.1.2.3, dotted', '::10.1.2.3', true],
  ['NAT64 of 127.0.0.1', '64:ff9b::7f00:1', true],
  ['NAT64 of 172.16.0.1, dotted', '64:ff9b::172.16.0.1', true],
  ['NAT64 of 8.8.8.8', '64:ff9b::808:808', false],
  ['NAT64 local-use prefix, whatever it carries', '64:ff9b:1::808:808', true],
  ['Teredo, client 127.0.0.1 (obfuscated)', '2001:0:4136:e378:8000:63bf:80ff:fffe', true],
  ['Teredo, client 10.0.0.1 (obfuscated)', '2001:0:4136:e378:8000:63bf:f5ff:fffe', true],
  ['Teredo, server 10.0.0.1', '2001:0:a00:1:8000:63bf:f7f7:f7f7', true],
  ['Teredo, client and server public', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', false],
  ['ISATAP of 127.0.0.1', '2600:1f00:1::5efe:7f00:1', true],
  ['ISATAP (u bit) of 10.0.0.1, dotted', '2600:1f00:1:0:200:5efe:10.0.0.1', true],
  ['ISATAP of 8.8.8.8', '2600:1f00:1::5efe:808:808', false],
  ['site-local', 'fec0::1', true],
  ['link-local with a zone', 'fe80::1%lo', true],
  ['plain public IPv6', '2606:4700:4700::1111', false],
];

/** What the delivery's request would be told by its `lookup`: the address, or the refusal's code. */
function lookedUp(address: string): Promise<string> {
  return new Promise((resolve) => {
    publicLookup(false)(address, { all: true }, (err, addresses) => {
      if (err !== null) resolve(err.code ?? err.message);
      else resolve((addresses as { address: string }[]).map((a) => a.address).join(','));
    });
  });
}

describe('embedded IPv4 forms', sqliteOnly, () => {
  let svc: TestService;
  let gameId: string;

  before(async () => {
    svc = await startTestService();
    ({ gameId } = await createGameFixture(svc, 'embedded-v4'));
  });
  after(() => svc.close());

  it('are refused when a URL is saved if the IPv4 is internal, and allowed if it is public', async () => {
    const problems: string[] = [];
    for (const [form, address, internal] of FORMS) {
      if (address.includes('%')) continue; // a URL cannot carry a zone
      const res = await svc.call('POST', `/cloud/games/${gameId}/webhooks`, {
        body: { url: `https://[${address}]/hook`, events: ['lobby.created'] },
      });
      const rule = res.json<{ metadata?: { errors?: { path: string[] }[] } }>().metadata?.errors?.[0]?.path;
      const refused = res.statusCode === 400 && rule?.join('.') === 'url.internal-host';
      if (refused !== internal || (!internal && res.statusCode !== 200)) {
        problems.push(`${form} [${address}]: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      if (res.statusCode === 200) {
        const { webhook } = res.json<{ webhook: { webhook_id: string } }>();
        await svc.call('DELETE', `/cloud/games/${gameId}/webhooks/${webhook.webhook_id}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('are refused when a delivery resolves its host if the IPv4 is internal', async () => {
    const problems: string[] = [];
    for (const [form, address, internal] of FORMS) {
      const answer = await lookedUp(address);
      const refused = answer === 'EADDRNOTPUBLIC';
      if (refused !== internal) problems.push(`${form} [${address}]: ${answer}`);
    }
    assert.deepEqual(problems, []);
  });
});
