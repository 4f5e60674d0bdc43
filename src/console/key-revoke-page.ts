// The confirmation before a key is revoked: revoking cannot be undone and cuts off whatever uses the
// key, so the list's Revoke opens this page, and only its form (which says `confirm=revoke`) revokes.
// No script needed: a page and a form.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type PageUser } from './console-layout.js';

/** The form field, and its value, that only this page's form sends: the server revokes only with it. */
export const REVOKE_CONFIRMATION = { name: 'confirm', value: 'revoke' } as const;

export function keyRevokePage(user: PageUser, key: ApiKeyRecord): string {
  const id = e(key.id);
  return layout(
    `Revoke ${key.id}?`,
    `<p>Revoking cannot be undone. From then on every request with <code>${id}</code> is refused, by every process:</p>
<ul>
<li>uploads it was given and has not completed fail, and any audio they received is deleted;</li>
<li>jobs already accepted still finish, but only this key could fetch them, and it no longer can;</li>
<li>its pending webhook events are not sent.</li>
</ul>
<form method="post" action="/keys/${id}/revoke" class="stack">${csrfField(user)}
<input type="hidden" name="${REVOKE_CONFIRMATION.name}" value="${REVOKE_CONFIRMATION.value}">
<button type="submit" class="danger">Revoke ${id}</button>
<a href="/keys">Cancel: keep the key</a>
</form>`,
    user,
  );
}
