import { randomBytes } from 'node:crypto';
import type { DeviceLinkPageState, PendingLinkOrigin } from './device-links.service.js';

/**
 * The page behind a device_link_url: a person pastes an operator token, picks a game and confirms. Plain
 * server-rendered HTML with its CSS and script inline, no framework. Everything rendered from data goes
 * through `escapeHtml`; the script is a constant and reads the link token from a data attribute, and the
 * games arrive as JSON and are shown with textContent, never as markup.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A fresh nonce per response: only the page's own inline style and script may run. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Headers of the page. The CSP allows the nonce'd inline style and script, requests to this origin (the
 * API) and nothing else; no framing; and the URL, which holds the link token, is never sent as a referrer
 * nor kept in a cache.
 */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/** The status code that goes with each state of the link. */
export function pageStatus(view: DeviceLinkPageState): number {
  if (view.state === 'invalid') return 400;
  if (view.state === 'expired') return 410;
  return 200;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6474; --bg: #f3f5f9; --card: #fff;
  --line: #d8dde6; --accent: #2f55d4; --ok: #17683b; --ok-bg: #e3f4ea; --err: #a8261b; --err-bg: #fdecea;
  --warn: #7a4d00; --warn-bg: #fff4dc; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ef; --muted: #a2aab8; --bg: #14171d; --card: #1d2129; --line: #343a46;
    --accent: #6f8df0; --ok: #8fe0b0; --ok-bg: #183526; --err: #ffb4aa; --err-bg: #3d1d1a;
    --warn: #ffd98a; --warn-bg: #3a2e12; }
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 480px; margin: 56px auto; padding: 32px; background: var(--card);
  border: 1px solid var(--line); border-radius: 12px; box-shadow: 0 2px 8px rgb(0 0 0 / 6%); }
.brand { margin: 0 0 20px; font-size: .8rem; font-weight: 600; letter-spacing: .08em;
  text-transform: uppercase; color: var(--muted); }
h1 { margin: 0 0 8px; font-size: 1.5rem; line-height: 1.25; }
.lead { margin: 0 0 24px; color: var(--muted); }
form { margin: 0 0 20px; }
label { display: block; margin: 0 0 6px; font-weight: 600; }
input, select { width: 100%; padding: 10px 12px; border: 1px solid var(--line); border-radius: 8px;
  background: var(--card); color: var(--fg); font: inherit; }
input:focus, select:focus, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
button { margin-top: 12px; padding: 10px 18px; border: 0; border-radius: 8px; background: var(--accent);
  color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:disabled { opacity: .6; cursor: progress; }
.hint { margin: 6px 0 0; font-size: .875rem; color: var(--muted); }
.result { margin: 16px 0 0; padding: 12px 14px; border-radius: 8px; }
.result strong { display: block; }
.result p { margin: 4px 0 0; overflow-wrap: anywhere; }
.ok { background: var(--ok-bg); color: var(--ok); }
.error { background: var(--err-bg); color: var(--err); }
.warn { background: var(--warn-bg); color: var(--warn); }
.expiry { margin: 24px 0 0; font-size: .8rem; color: var(--muted); }
.origin { margin: 0 0 24px; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; }
.origin dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 8px 0 0;
  font-size: .875rem; }
.origin dt { color: var(--muted); }
.origin dd { margin: 0; overflow-wrap: anywhere; }
.code { margin: 0; font: 600 1.5rem/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  letter-spacing: .12em; }
[hidden] { display: none !important; }
`;

// Runs in the browser. It only talks to this origin (the CSP says so too) and keeps the pasted token in the
// input alone: nothing is stored.
const SCRIPT = `
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const root = byId('link');
  const linkToken = root.dataset.linkToken;
  const tokenForm = byId('token-form');
  const tokenInput = byId('token');
  const gameForm = byId('game-form');
  const gameSelect = byId('game');
  const result = byId('result');

  const show = (kind, title, detail) => {
    result.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = title;
    result.append(strong);
    if (detail) {
      const p = document.createElement('p');
      p.textContent = detail;
      result.append(p);
    }
    result.className = 'result ' + kind;
    result.hidden = false;
  };

  const call = async (method, path, body) => {
    const headers = { authorization: 'Bearer ' + tokenInput.value.trim() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      return { ok: false, status: 0, code: '', message: 'The service could not be reached; check the connection and try again.' };
    }
    const text = await res.text();
    let data = null;
    try { data = text === '' ? null : JSON.parse(text); } catch { data = null; }
    if (res.ok) return { ok: true, data };
    const message = data && typeof data.message === 'string' ? data.message : 'The service answered ' + res.status + '.';
    const code = data && typeof data.code === 'string' ? data.code : '';
    return { ok: false, status: res.status, code, message };
  };

  const detailOf = (r) => 'The service said: ' + r.message + (r.code ? ' (' + r.code + ')' : '');
  const busy = (form, on) => { for (const b of form.querySelectorAll('button')) b.disabled = on; };
  const finish = () => { tokenInput.value = ''; tokenForm.hidden = true; gameForm.hidden = true; };

  tokenForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    result.hidden = true;
    gameForm.hidden = true;
    if (tokenInput.value.trim() === '') { show('error', 'Paste a token first.'); return; }
    busy(tokenForm, true);
    const r = await call('GET', '/cloud/games');
    busy(tokenForm, false);
    if (!r.ok) { show('error', 'This token cannot list games.', detailOf(r)); return; }
    const games = r.data.games;
    if (games.length === 0) { show('warn', 'There are no games yet.', 'Create a game first, then open this link again.'); return; }
    gameSelect.replaceChildren();
    for (const game of games) {
      const option = document.createElement('option');
      option.value = game.game_id;
      option.textContent = game.display_name + ' (' + game.name_id + ')';
      gameSelect.append(option);
    }
    gameForm.hidden = false;
    gameSelect.focus();
  });

  gameForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const option = gameSelect.selectedOptions[0];
    if (!option) return;
    busy(gameForm, true);
    const r = await call('POST', '/cloud/devices/links/complete', { device_link_token: linkToken, game_id: option.value });
    busy(gameForm, false);
    if (r.ok) {
      finish();
      show('ok', 'Device linked to ' + option.textContent + '.', 'Go back to your terminal: the tool has its token now. You can close this page.');
    } else if (r.code === 'CLOUD_DEVICE_LINK_ALREADY_COMPLETE') {
      finish();
      show('warn', 'This link has already been used.', detailOf(r));
    } else if (r.code === 'TOKEN_EXPIRED' && r.status === 400) {
      finish();
      show('error', 'This link has expired.', detailOf(r));
    } else {
      show('error', 'The device could not be linked.', detailOf(r));
    }
  });
})();
`;

const MESSAGES = {
  complete: {
    kind: 'warn',
    title: 'This link has already been used',
    text:
      'A device was already linked with it, and a link works only once. To link another device, run the ' +
      'login command again for a new link. If you did not link it, revoke the token it received.',
  },
  expired: {
    kind: 'error',
    title: 'This link has expired',
    text: 'Device links are valid for one hour. Run the login command in your terminal again for a new link.',
  },
  invalid: {
    kind: 'error',
    title: 'This link is not valid',
    text:
      'Check that you opened the whole address shown in your terminal, or run the login command again for ' +
      'a new link.',
  },
} as const;

function layout(nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Link a device · Game Cloud</title>
<link rel="icon" href="data:,">
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function utc(timestamp: string): string {
  return timestamp.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/**
 * Who asked, so that a person sent someone else's link (phishing for a token) can tell: the confirmation
 * code the tool printed, the address and User-Agent the link was started from, and when.
 */
function renderOrigin(origin: PendingLinkOrigin): string {
  const unknown = '<em>not recorded</em>';
  // An IPv6 client is counted (and recorded) by its /64 network.
  const address =
    origin.clientAddress === null
      ? unknown
      : escapeHtml(origin.clientAddress.includes(':') ? `${origin.clientAddress}/64` : origin.clientAddress);
  const agent = origin.userAgent === null ? unknown : escapeHtml(origin.userAgent);
  const code =
    origin.userCode === null
      ? ''
      : `<p class="hint">Confirmation code</p>
<p class="code" id="user-code">${escapeHtml(origin.userCode)}</p>
<p class="hint">The tool showed this code when it started. If it shows another one, or you did not start a
sign-in just now, do not go on: close this page.</p>`;
  return `<section class="origin" aria-label="Who is asking">
${code}
<dl>
<dt>Requested from</dt><dd id="origin-address">${address}</dd>
<dt>Program</dt><dd id="origin-agent">${agent}</dd>
<dt>Requested at</dt><dd id="origin-time"><time datetime="${escapeHtml(origin.createTs)}">${escapeHtml(
    utc(origin.createTs),
  )}</time></dd>
</dl>
</section>`;
}

export function renderDeviceLinkPage(view: DeviceLinkPageState, linkToken: string, nonce: string): string {
  if (view.state !== 'pending') {
    const message = MESSAGES[view.state];
    return layout(
      nonce,
      `<main id="link">
<p class="brand">Game Cloud</p>
<h1>${escapeHtml(message.title)}</h1>
<div class="result ${message.kind}" role="alert"><p>${escapeHtml(message.text)}</p></div>
</main>`,
    );
  }
  return layout(
    nonce,
    `<main id="link" data-link-token="${escapeHtml(linkToken)}">
<p class="brand">Game Cloud</p>
<h1>Link a device</h1>
<p class="lead">A command-line tool is asking to sign in. Choose the game it may manage: it will receive a
new cloud token for that game.</p>
${renderOrigin(view.origin)}
<form id="token-form">
<label for="token">Operator token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" placeholder="Paste the operator token">
<p class="hint">Sent only to this service, to list the games and to confirm. A game's cloud token works too, for its own game.</p>
<button type="submit">Show games</button>
</form>
<form id="game-form" hidden>
<label for="game">Game</label>
<select id="game" name="game"></select>
<button type="submit">Link this device</button>
</form>
<div id="result" class="result" role="status" aria-live="polite" hidden></div>
<p class="expiry">This link expires at <time datetime="${escapeHtml(view.expireTs)}">${escapeHtml(
      utc(view.expireTs),
    )}</time>.</p>
</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>`,
  );
}
