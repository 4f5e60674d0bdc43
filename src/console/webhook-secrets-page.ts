// The webhook secrets page: each active API key of the tenant with its signing-secret versions
// (active; previous, signing until its 24 h after a rotation; expired; revoked), and create, rotate
// and revoke. A new secret is shown this once, with a copy button; never again.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { WebhookSecretSummary } from '../store/webhook-secret-store.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type Notice, type PageUser } from './console-layout.js';
import { timeText } from './console-time.js';

export interface KeySecrets {
  key: ApiKeyRecord;
  versions: readonly WebhookSecretSummary[];
}

export interface ShownSecret {
  keyId: string;
  version: number;
  secret: string;
}

const STATE_TEXT: Record<WebhookSecretSummary['state'], (s: WebhookSecretSummary) => string> = {
  active: () => 'active: signs every event',
  previous: (s) => `previous: still signs until ${timeText(s.usableUntil!)}`,
  expired: (s) => `expired ${timeText(s.usableUntil!)}`,
  revoked: (s) => `revoked ${timeText(s.revokedAt!)}`,
};

function action(user: PageUser, keyId: string, verb: 'create' | 'rotate' | 'revoke', label: string, className: string): string {
  return `<form method="post" action="/webhooks/${e(keyId)}/${verb}" class="inline">${csrfField(user)}
<button type="submit" class="${className}" aria-label="${e(`${label} the webhook secret of ${keyId}`)}">${e(label)}</button></form>`;
}

function keySection(user: PageUser, { key, versions }: KeySecrets): string {
  const active = versions.some((v) => v.state === 'active');
  const signing = versions.some((v) => v.state === 'active' || v.state === 'previous');
  const rows = [...versions]
    .reverse()
    .map((v) => `<tr><td>${v.version}</td><td>${timeText(v.createdAt)}</td><td class="state-${v.state}">${STATE_TEXT[v.state](v)}</td></tr>`)
    .join('\n');
  const actions = [
    active ? action(user, key.id, 'rotate', 'Rotate', 'primary') : action(user, key.id, 'create', 'Create a secret', 'primary'),
    signing ? action(user, key.id, 'revoke', 'Revoke', 'danger') : '',
  ].join('\n');
  const table = rows
    ? `<table><caption class="muted">Versions of ${e(key.id)}, newest first; secrets are shown once, when made.</caption>
<thead><tr><th scope="col">Version</th><th scope="col">Created</th><th scope="col">State</th></tr></thead>
<tbody>
${rows}
</tbody></table>`
    : '<p>No signing secret yet: requests of this key with a <code>webhook_url</code> are refused until one is created.</p>';
  return `<section aria-labelledby="key-${e(key.id)}" class="webhook-key"><h2 id="key-${e(key.id)}">Key <code>${e(key.id)}</code></h2>
${table}
<div class="actions">${actions}</div></section>`;
}

export function webhookSecretsPage(user: PageUser, keys: readonly KeySecrets[], shown: ShownSecret | null, notice: Notice | null): string {
  const created = shown
    ? `<section aria-labelledby="new-secret"><h2 id="new-secret">New signing secret of ${e(shown.keyId)}, version ${shown.version}</h2>
<p>This is the only time the secret is shown: give it to your webhook receiver now.</p>
<div class="secret"><code id="created-secret">${e(shown.secret)}</code><button type="button" data-copy="created-secret" hidden>Copy</button></div></section>`
    : '';
  return layout(
    'Webhook secrets',
    `${created}
<p>Events of a key are signed with its secret (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>,
<code>webhook-signature</code>). <strong>Rotate</strong>: the new version signs at once and the previous one keeps signing for
24 hours, so your receiver can move over. <strong>Revoke</strong> (for a secret that leaked): every version of the key stops
signing at once, the 24 hours included; the key's requests with a <code>webhook_url</code> are refused until you create a new
secret, and its events waiting for their next attempt are sent once a new secret exists (attempts before that fail).</p>
${keys.map((k) => keySection(user, k)).join('\n') || '<p>There is no active API key: create one on the API keys page first.</p>'}`,
    user,
    notice,
  );
}
