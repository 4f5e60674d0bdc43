// The keys page: the tenant's API keys with their terms and last use, a key created (shown this once, with a copy
// button), revoke (after a confirmation page), rotate (a new key; the old one revoked after the overlap picked), and each key's
// retention and default language.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { LONGEST_ROTATION_OVERLAP_HOURS } from '../domain/rotation-overlap.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type Notice, type PageUser } from './console-layout.js';

/** The overlaps a rotation offers, in seconds: how long the old key keeps working beside the new one. */
export const ROTATION_OVERLAPS: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 0, label: 'at once' },
  { seconds: 3_600, label: 'after 1 hour' },
  { seconds: 86_400, label: 'after 24 hours' },
  { seconds: LONGEST_ROTATION_OVERLAP_HOURS * 3_600, label: 'after 7 days' },
];
const DEFAULT_OVERLAP_SECONDS = 86_400;

/** '2026-11-28 07:15 UTC' of an ISO time. */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Rotate: a new key with this one's terms; this one revoked after the overlap picked. */
function rotateForm(user: PageUser, k: ApiKeyRecord): string {
  const options = ROTATION_OVERLAPS.map(
    (o) => `<option value="${o.seconds}"${o.seconds === DEFAULT_OVERLAP_SECONDS ? ' selected' : ''}>${o.label}</option>`,
  ).join('');
  return `<form method="post" action="/keys/${e(k.id)}/rotate" class="settings">${csrfField(user)}
<label>Revoke the old key<select name="overlap_seconds">${options}</select></label>
<button type="submit" aria-label="Rotate ${e(k.id)}">Rotate</button></form>`;
}

/** Revoke opens its confirmation page (key-revoke-page.ts); a key in its rotation overlap is revoked "now". */
function revokeLink(k: ApiKeyRecord): string {
  const now = k.revokeAt ? ' now' : '';
  return `<a href="/keys/${e(k.id)}/revoke" class="button danger" aria-label="Revoke${now} ${e(k.id)}">Revoke${now}…</a>`;
}

function statusOf(k: ApiKeyRecord): string {
  if (k.revokedAt) return `revoked ${e(k.revokedAt.slice(0, 10))}`;
  return k.revokeAt ? `active until ${e(utcMinute(k.revokeAt))} (rotated), then revoked` : 'active';
}

const KEY_COLUMNS = ['Id', 'Created', 'Last used', 'Plan', 'Entitlements', 'Rate limit', 'Retention and default language', 'Status', 'Action'];

/** When the key last authenticated a request or started a session, to the minute (it is recorded no finer). */
function lastUsedOf(k: ApiKeyRecord): string {
  return k.lastUsedAt === null ? 'never' : e(utcMinute(k.lastUsedAt));
}

/** A key's retention (1-72 h) and default language (empty: detected), saved together. */
function settingsForm(user: PageUser, k: ApiKeyRecord): string {
  return `<form method="post" action="/keys/${e(k.id)}/settings" class="settings">${csrfField(user)}
<label>Retention (hours)<input type="number" name="retention_hours" min="1" max="72" required value="${k.retentionHours}"></label>
<label>Default language<input type="text" name="default_language" value="${e(k.defaultLanguage ?? '')}" placeholder="detected" size="8"></label>
<button type="submit" aria-label="Save the settings of ${e(k.id)}">Save</button></form>`;
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
<td>${lastUsedOf(k)}</td>
<td>${e(k.plan)}</td>
<td>${e(k.entitlements.join(', ') || 'none')}</td>
<td>${k.rateLimitPerMinute === null ? 'default' : `${k.rateLimitPerMinute}/min`}</td>
<td>${k.revokedAt ? `${k.retentionHours} h · ${e(k.defaultLanguage ?? 'detected')}` : settingsForm(user, k)}</td>
<td>${statusOf(k)}</td>
<td>${k.revokedAt ? '' : `${k.revokeAt ? '' : rotateForm(user, k)}${revokeLink(k)}`}</td>
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
<div class="scroll"><table>
<caption class="muted">Keys are shown once, when created; here only their ids.</caption>
<thead><tr>${KEY_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>
<tbody>
${rows || `<tr><td colspan="${KEY_COLUMNS.length}">No keys yet.</td></tr>`}
</tbody>
</table></div>`,
    user,
    notice,
  );
}
