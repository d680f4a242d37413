import { randomBytes } from 'node:crypto';
import type { DeviceLinkPageState, PendingLinkOrigin } from './device-links.service.js';

/**
 * The page behind a device_link_url: a person signs in (or is signed in already), picks one of their teams'
 * games and confirms; operators may paste their token instead, behind a disclosure. Plain
 * server-rendered HTML with its script inline, no framework. It wears the dashboard's look: the dashboard's
 * built stylesheet (colours, type, light and dark, focus, the header) and its class names, plus a few rules
 * of its own inline. Everything rendered from data goes through `escapeHtml`; the script is a constant and
 * reads the link token from a data attribute, and the games arrive as JSON and are shown with textContent,
 * never as markup.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A fresh nonce per response: only the page's own inline style and script may run. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Headers of the page. The CSP allows the nonce'd inline style and script, the dashboard's stylesheet
 * from this origin, requests to this origin (the API) and nothing else; no framing; and the URL, which holds
 * the link token, is never sent as a referrer nor kept in a cache.
 */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'self' 'nonce-${nonce}'`,
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

/**
 * What the dashboard's stylesheet has no rules for: the success and warning notices, who asked, the
 * operator's disclosure. Its colours are the dashboard's variables; a checkout that never built the
 * dashboard gets a plain but working page.
 */
const STYLE = `
:root { --ok: #17683b; --ok-bg: #e3f4ea; --warn: #7a4d00; --warn-bg: #fff4dc; }
@media (prefers-color-scheme: dark) {
  :root { --ok: #8fe0b0; --ok-bg: #183526; --warn: #ffd98a; --warn-bg: #3a2e12; }
}
.narrow.device-link { max-width: 480px; }
.device-link form { margin: 0 0 8px; }
.device-link .fine { margin: 0; }
.notice strong { display: block; }
.ok { background: var(--ok-bg); color: var(--ok); }
.warn { background: var(--warn-bg); color: var(--warn); }
.device-link .expiry { margin: 24px 0 0; }
.origin { margin: 0 0 24px; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; }
.origin dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 8px 0 0;
  font-size: .875rem; }
.origin dt { color: var(--muted); }
.origin dd { margin: 0; overflow-wrap: anywhere; }
.origin .code + .fine { margin-top: 6px; }
.code { margin: 0; font: 600 1.5rem/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  letter-spacing: .12em; }
details.operator { margin: 24px 0 0; padding-top: 16px; border-top: 1px solid var(--line); }
details.operator summary { cursor: pointer; color: var(--muted); font-size: .875rem; }
details.operator form { margin: 12px 0 0; }
[hidden] { display: none !important; }
`;

// Runs in the browser. It only talks to this origin (the CSP says so too). A person's session is the
// HttpOnly cookie the sign-in call sets, sent with same-origin requests; a pasted token stays in its input
// alone and goes with no cookie. Nothing is stored by the script.
const SCRIPT = `
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const root = byId('link');
  const linkToken = root.dataset.linkToken;
  const signInForm = byId('sign-in-form');
  const emailInput = byId('email');
  const passwordInput = byId('password');
  const who = byId('who');
  const whoEmail = byId('who-email');
  const signOutButton = byId('sign-out');
  const tokenDetails = byId('token-details');
  const tokenForm = byId('token-form');
  const tokenInput = byId('token');
  const gameForm = byId('game-form');
  const gameSelect = byId('game');
  const result = byId('result');
  // 'session' (the signed-in person) or 'token' (a pasted operator or cloud token).
  let mode = 'session';

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
    result.className = 'result notice ' + kind;
    result.hidden = false;
  };

  const call = async (method, path, body, as) => {
    const headers = {};
    if (as === 'token') headers.authorization = 'Bearer ' + tokenInput.value.trim();
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: as === 'token' ? 'omit' : 'same-origin',
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
  const finish = () => {
    tokenInput.value = '';
    passwordInput.value = '';
    signInForm.hidden = true;
    tokenDetails.hidden = true;
    gameForm.hidden = true;
  };

  const offerGames = (games) => {
    if (games.length === 0) {
      show('warn', mode === 'session' ? 'None of your teams has a game you may link.' : 'There are no games yet.',
        mode === 'session'
          ? 'Linking a device needs the member role or stronger in the team that owns the game. Ask an admin of the team, then open this link again.'
          : 'Create a game first, then open this link again.');
      return;
    }
    gameSelect.replaceChildren();
    for (const game of games) {
      const option = document.createElement('option');
      option.value = game.game_id;
      option.textContent = game.display_name + ' (' + game.name_id + ')';
      gameSelect.append(option);
    }
    gameForm.hidden = false;
    gameSelect.focus();
  };

  // The games this person may link: those of teams where they are member or stronger.
  const personGames = async () => {
    const [me, list] = await Promise.all([call('GET', '/cloud/auth/inspect', undefined, 'session'), call('GET', '/cloud/games', undefined, 'session')]);
    if (!me.ok) return me;
    if (!list.ok) return list;
    const roles = new Map(me.data.agent.person.teams.map((t) => [t.team_id, t.role]));
    const may = new Set(['owner', 'admin', 'member']);
    return { ok: true, data: list.data.games.filter((g) => may.has(roles.get(g.team_id))) };
  };

  const signedIn = async (email) => {
    mode = 'session';
    signInForm.hidden = true;
    whoEmail.textContent = email;
    whoEmail.title = email;
    who.hidden = false;
    const r = await personGames();
    if (!r.ok) { show('error', 'Your games could not be listed.', detailOf(r)); return; }
    offerGames(r.data);
  };

  const signedOut = () => {
    who.hidden = true;
    gameForm.hidden = true;
    signInForm.hidden = false;
  };

  signInForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    result.hidden = true;
    if (emailInput.value.trim() === '' || passwordInput.value === '') { show('error', 'Enter your email and password.'); return; }
    busy(signInForm, true);
    const r = await call('POST', '/auth/sign-in/email', { email: emailInput.value.trim(), password: passwordInput.value }, 'session');
    busy(signInForm, false);
    passwordInput.value = '';
    if (!r.ok) { show('error', 'Sign-in failed.', detailOf(r)); return; }
    await signedIn(r.data.user.email);
  });

  signOutButton.addEventListener('click', async () => {
    result.hidden = true;
    const r = await call('POST', '/auth/sign-out', {}, 'session');
    if (!r.ok) { show('error', 'Sign-out failed.', detailOf(r)); return; }
    signedOut();
  });

  tokenForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    result.hidden = true;
    gameForm.hidden = true;
    if (tokenInput.value.trim() === '') { show('error', 'Paste a token first.'); return; }
    mode = 'token';
    busy(tokenForm, true);
    const r = await call('GET', '/cloud/games', undefined, 'token');
    busy(tokenForm, false);
    if (!r.ok) { show('error', 'This token cannot list games.', detailOf(r)); return; }
    offerGames(r.data.games);
  });

  gameForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const option = gameSelect.selectedOptions[0];
    if (!option) return;
    busy(gameForm, true);
    const r = await call('POST', '/cloud/devices/links/complete', { device_link_token: linkToken, game_id: option.value }, mode);
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

  (async () => {
    const r = await call('GET', '/auth/get-session', undefined, 'session');
    if (r.ok && r.data && r.data.user) await signedIn(r.data.user.email);
    else signedOut();
  })();
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

/**
 * The dashboard's frame: skip link, the header with the brand (a link to the dashboard) and, once the
 * script knows it, who is signed in; then the page in a card.
 */
function layout(page: PageLook, body: string, session = ''): string {
  const sheets = page.stylesheets
    .map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">\n`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Link a device · Game Cloud</title>
<link rel="icon" href="data:,">
${sheets}<style nonce="${escapeHtml(page.nonce)}">${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
<a href="/" class="brand">Game Cloud</a>
${session}</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`;
}

/** What the page is dressed in: the per-response nonce, and the dashboard's stylesheets (none if unbuilt). */
export interface PageLook {
  nonce: string;
  stylesheets: readonly string[];
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
      : `<p class="fine">Confirmation code</p>
<p class="code" id="user-code">${escapeHtml(origin.userCode)}</p>
<p class="fine">The tool showed this code when it started. If it shows another one, or you did not start a
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

export function renderDeviceLinkPage(view: DeviceLinkPageState, linkToken: string, page: PageLook): string {
  if (view.state !== 'pending') {
    const message = MESSAGES[view.state];
    return layout(
      page,
      `<div class="narrow device-link">
<h1>${escapeHtml(message.title)}</h1>
<div class="notice ${message.kind}" role="alert"><p>${escapeHtml(message.text)}</p></div>
</div>`,
    );
  }
  return layout(
    page,
    `<div id="link" class="narrow device-link" data-link-token="${escapeHtml(linkToken)}">
<h1>Link a device</h1>
<p class="lead">A command-line tool is asking to sign in. Choose the game it may manage: it will receive a
new cloud token for that game, minted on your behalf.</p>
${renderOrigin(view.origin)}
<form id="sign-in-form" class="stack" hidden>
<label>Email
<input id="email" name="email" type="email" autocomplete="username" spellcheck="false"></label>
<label>Password
<input id="password" name="password" type="password" autocomplete="current-password"></label>
<p class="fine">Sign in with your account: the tool will get a token for one of your teams' games.</p>
<div><button type="submit">Sign in</button></div>
</form>
<form id="game-form" class="stack" hidden>
<label>Game
<select id="game" name="game"></select></label>
<div><button type="submit">Link this device</button></div>
</form>
<details id="token-details" class="operator">
<summary>Operators: use a token instead</summary>
<form id="token-form" class="stack">
<label>Operator token
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" placeholder="Paste the operator token"></label>
<p class="fine">Sent only to this service, to list the games and to confirm. A game's cloud token works too, for its own game.</p>
<div><button type="submit">Show games</button></div>
</form>
</details>
<div id="result" class="result notice" role="status" aria-live="polite" hidden></div>
<p class="expiry fine">This link expires at <time datetime="${escapeHtml(view.expireTs)}">${escapeHtml(
      utc(view.expireTs),
    )}</time>.</p>
</div>
<script nonce="${escapeHtml(page.nonce)}">${SCRIPT}</script>`,
    `<div id="who" class="session" hidden>
<span class="who"><span class="visually-hidden">Signed in as </span><span id="who-email"></span></span>
<button type="button" id="sign-out" class="secondary">Sign out</button>
</div>
`,
  );
}
