// The console's pages as HTML: one layout (a skip link, the tenant's navigation, sign-out with its
// CSRF token), forms that work with a keyboard and without script, labels on every input, and
// messages that name what went wrong without echoing what was typed into a password field.
import type { ApiKeyRecord } from '../store/key-store.js';
import { escapeHtml as e } from './console-http.js';

export interface PageUser {
  email: string;
  tenant: string;
  csrfToken: string;
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

export function layout(title: string, body: string, user: PageUser | null, notice: Notice | null = null): string {
  const nav = user
    ? `<nav aria-label="Console"><a href="/keys">API keys</a></nav>
<span class="muted">${e(user.email)} · ${e(user.tenant)}</span>
<form method="post" action="/sign-out" class="inline">${csrfField(user)}<button type="submit">Sign out</button></form>
<form method="post" action="/sign-out-everywhere" class="inline">${csrfField(user)}<button type="submit">Sign out everywhere</button></form>`
    : '';
  const message = notice ? `<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${e(notice.text)}</div>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} · svc-stt console</title>
<link rel="stylesheet" href="/assets/console.css">
<script type="module" src="/assets/console.js"></script>
</head>
<body>
<header><span class="brand">svc-stt console</span>${nav}</header>
<main id="main">
<h1>${e(title)}</h1>
${message}${body}
</main>
</body>
</html>
`;
}

export function signInPage(email: string, notice: Notice | null): string {
  return layout(
    'Sign in',
    `<form method="post" action="/sign-in" class="stack">
<label>Email<input type="email" name="email" autocomplete="username" required value="${e(email)}"></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit" class="primary">Sign in</button>
</form>`,
    null,
    notice,
  );
}

export function invitePage(token: string, email: string, tenant: string, notice: Notice | null): string {
  return layout(
    'Set your password',
    `<p>You were invited to the console of <strong>${e(tenant)}</strong> as <strong>${e(email)}</strong>.</p>
<form method="post" action="/invite/${e(token)}" class="stack">
<input type="email" name="username" autocomplete="username" value="${e(email)}" readonly hidden>
<label>New password<input type="password" name="password" autocomplete="new-password" minlength="12" required aria-describedby="password-rule"></label>
<p id="password-rule" class="muted">At least 12 characters; not a common password.</p>
<label>Repeat it<input type="password" name="repeat" autocomplete="new-password" minlength="12" required></label>
<button type="submit" class="primary">Set password and sign in</button>
</form>`,
    null,
    notice,
  );
}

export function messagePage(title: string, text: string, user: PageUser | null = null): string {
  return layout(title, `<p>${e(text)}</p><p><a href="${user ? '/keys' : '/sign-in'}">Continue</a></p>`, user);
}

const KEY_COLUMNS = ['Id', 'Created', 'Plan', 'Entitlements', 'Rate limit', 'Retention and default language', 'Status', 'Action'];

/** A key's retention (1-72 h) and default language (empty: detected), saved together. */
function settingsForm(user: PageUser, k: ApiKeyRecord): string {
  return `<form method="post" action="/keys/${e(k.id)}/settings" class="settings">${csrfField(user)}
<label>Retention (hours)<input type="number" name="retention_hours" min="1" max="72" required value="${k.retentionHours}"></label>
<label>Default language<input type="text" name="default_language" value="${e(k.defaultLanguage ?? '')}" placeholder="detected" size="8"></label>
<button type="submit" aria-label="Save the settings of ${e(k.id)}">Save</button></form>`;
}

function csrfField(user: PageUser): string {
  return `<input type="hidden" name="csrf" value="${e(user.csrfToken)}">`;
}

export interface CreatedKey {
  id: string;
  key: string;
}

export function keysPage(user: PageUser, keys: readonly ApiKeyRecord[], created: CreatedKey | null, notice: Notice | null): string {
  const shown = created
    ? `<section aria-labelledby="new-key"><h2 id="new-key">New key ${e(created.id)}</h2>
<p>This is the only time the key is shown: store it now.</p>
<div class="secret"><code id="created-key">${e(created.key)}</code><button type="button" data-copy="created-key" hidden>Copy</button></div></section>`
    : '';
  const rows = keys
    .map(
      (k) => `<tr>
<td><code>${e(k.id)}</code></td>
<td>${e(k.createdAt.slice(0, 10))}</td>
<td>${e(k.plan)}</td>
<td>${e(k.entitlements.join(', ') || 'none')}</td>
<td>${k.rateLimitPerMinute === null ? 'default' : `${k.rateLimitPerMinute}/min`}</td>
<td>${k.revokedAt ? `${k.retentionHours} h · ${e(k.defaultLanguage ?? 'detected')}` : settingsForm(user, k)}</td>
<td>${k.revokedAt ? `revoked ${e(k.revokedAt.slice(0, 10))}` : 'active'}</td>
<td>${
        k.revokedAt
          ? ''
          : `<form method="post" action="/keys/${e(k.id)}/revoke" class="inline">${csrfField(user)}
<button type="submit" class="danger" aria-label="Revoke ${e(k.id)}">Revoke</button></form>`
      }</td>
</tr>`,
    )
    .join('\n');
  return layout(
    'API keys',
    `${shown}
<form method="post" action="/keys" class="stack">
${csrfField(user)}
<button type="submit" class="primary">Create a key</button>
</form>
<h2>Keys of ${e(user.tenant)}</h2>
<table>
<caption class="muted">Keys are shown once, when created; here only their ids.</caption>
<thead><tr>${KEY_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>
<tbody>
${rows || '<tr><td colspan="8">No keys yet.</td></tr>'}
</tbody>
</table>`,
    user,
    notice,
  );
}
