import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from './helpers/paths.js';

/**
 * The README is short and links into docs/, whose files link to each other by section: a renamed heading or
 * a moved file must not leave a reader at a dead link. Checks every relative link and image of README.md and
 * docs/*.md, and each `#anchor` against the headings GitHub makes anchors of.
 */

function documents(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs];
}

/** The text outside fenced code blocks, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = prose(readFileSync(path.join(REPO_ROOT, file), 'utf8'));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] as string)));
}

function links(file: string): string[] {
  const text = prose(readFileSync(path.join(REPO_ROOT, file), 'utf8')).replace(/`[^`\n]*`/g, '');
  const markdown = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
  const html = [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
  return [...markdown, ...html].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('README and docs links', () => {
  it('resolves every relative link and anchor', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of documents()) {
      for (const target of links(file)) {
        checked += 1;
        const [pathPart = '', anchor] = target.split('#', 2);
        const resolved = pathPart === '' ? file : path.join(path.dirname(file), pathPart);
        if (!existsSync(path.join(REPO_ROOT, resolved))) {
          broken.push(`${file}: ${target} (no ${resolved})`);
        } else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 20, `only ${checked} links found: is the pattern still right?`);
  });

  it('keeps the README a newcomer reads under 400 lines, linking to each reference file', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length < 400, `README.md has ${readme.split('\n').length} lines`);
    for (const file of documents().filter((f) => f !== 'README.md')) {
      assert.ok(readme.includes(`](${file})`), `README.md does not link ${file}`);
    }
  });
});
