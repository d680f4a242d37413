import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBytes, proposeId } from '@gcm/contract';

/** The contract's text helpers, which the CLI and the dashboard both use, so both write the same. */
describe('contract text helpers', () => {
  it('proposes an id cut at a word boundary, never empty when the name has a letter or digit', () => {
    assert.equal(proposeId('Star Raiders: Online!', 16), 'star-raiders');
    assert.equal(proposeId('  Ünïcödé  Studio ', 48), 'unicode-studio');
    assert.equal(proposeId('Staging', 16), 'staging');
    // Exactly at the limit: kept whole.
    assert.equal(proposeId('abcdefgh ijklmnop', 17), 'abcdefgh-ijklmnop');
    // One word over the limit: cut inside it, since an id must not be empty.
    assert.equal(proposeId('Supercalifragilistic', 16), 'supercalifragili');
    assert.equal(proposeId('!!!', 16), '');
  });

  it('writes sizes one way: bytes under 1 KiB, else one decimal in binary units', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(6 * 1024 * 1024), '6.0 MiB');
    assert.equal(formatBytes(12 * 1024 * 1024), '12.0 MiB');
    assert.equal(formatBytes(1.5 * 1024 ** 3), '1.5 GiB');
  });
});
