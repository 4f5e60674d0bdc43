// The second factor's pages: the account page (TOTP off, being set up with its secret shown, or on
// with its recovery codes) and the sign-in's code form. The secret is shown as text to type, as an
// otpauth:// link and as a QR code drawn by the console itself (inline SVG: no other origin).
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type Notice, type PageUser } from './console-layout.js';
import { qrCodeSvg } from './qr-code.js';
import { base32, otpauthUri } from './totp.js';

/** The issuer authenticator apps show next to the account. */
export const TOTP_ISSUER = 'svc-stt console';

export type AccountView =
  | { state: 'off' }
  | { state: 'setup'; secret: Buffer }
  | { state: 'on'; sinceMs: number; recoveryCodesLeft: number; newRecoveryCodes: readonly string[] | null };

/** A code input: six digits from the app (a space typed in the middle is fine). */
function codeInput(label: string, recovery: boolean): string {
  const hint = recovery ? ' aria-describedby="code-hint"' : ' inputmode="numeric" pattern="[0-9 ]{6,7}"';
  return `<label>${e(label)}<input type="text" name="code" autocomplete="one-time-code" required${hint}></label>`;
}

/**
 * The current password: asked before the second factor is turned on or off, or its recovery codes
 * replaced. With the account's email as a hidden username (not posted), as password managers expect.
 */
function passwordInput(email: string): string {
  return `<input type="email" autocomplete="username" value="${e(email)}" hidden readonly>
<label>Your password<input type="password" name="password" autocomplete="current-password" required></label>`;
}

function recoveryCodesSection(codes: readonly string[]): string {
  return `<section aria-labelledby="recovery-title"><h2 id="recovery-title">Your recovery codes</h2>
<p>Each one signs you in once, in place of a code from the app. This is the only time they are shown: store them now.</p>
<pre id="recovery-codes">${codes.map(e).join('\n')}</pre>
<button type="button" data-copy="recovery-codes" hidden>Copy</button></section>`;
}

export function accountPage(user: PageUser, required: boolean, view: AccountView, notice: Notice | null): string {
  const requirement = required ? `<p><strong>${e(user.tenant)} requires a second factor:</strong> turn it on to use the console.</p>` : '';
  let body: string;
  if (view.state === 'off') {
    body = `${requirement}<p>Two-step sign-in is <strong>off</strong>. With it on, signing in takes your password and a code from an authenticator app.</p>
<form method="post" action="/account/totp" class="stack">${csrfField(user)}
<button type="submit" class="primary">Set up two-step sign-in</button></form>`;
  } else if (view.state === 'setup') {
    const uri = otpauthUri(view.secret, TOTP_ISSUER, user.email);
    const grouped = base32(view.secret).replace(/(.{4})(?=.)/g, '$1 ');
    body = `${requirement}<ol class="steps">
<li>Scan the QR code with an authenticator app, <a href="${e(uri)}">open the setup link</a> on this device, or type this key into the app:
<div class="secret"><code id="totp-secret">${e(grouped)}</code><button type="button" data-copy="totp-secret" hidden>Copy</button></div>
<figure class="qr">${qrCodeSvg(uri, 'QR code of the setup link')}</figure></li>
<li>Type your password and the 6-digit code the app shows now: two-step sign-in is on once both are right.</li>
</ol>
<form method="post" action="/account/totp/confirm" class="stack">${csrfField(user)}
${passwordInput(user.email)}
${codeInput('Code from the app', false)}
<button type="submit" class="primary">Turn on</button></form>`;
  } else {
    const since = new Date(view.sinceMs).toISOString().slice(0, 10);
    const turnOff = required
      ? `<p>${e(user.tenant)} requires a second factor: it cannot be turned off.</p>`
      : `<form method="post" action="/account/totp/disable" class="stack">${csrfField(user)}
${passwordInput(user.email)}
${codeInput('Code from the app, or a recovery code', true)}
<button type="submit" class="danger">Turn off two-step sign-in</button></form>`;
    body = `${view.newRecoveryCodes ? recoveryCodesSection(view.newRecoveryCodes) : ''}
<p>Two-step sign-in is <strong>on</strong> since ${e(since)}. ${view.recoveryCodesLeft} recovery code${view.recoveryCodesLeft === 1 ? '' : 's'} left.</p>
<p id="code-hint" class="muted">A code from the app, or one of your recovery codes.</p>
<h2>New recovery codes</h2>
<form method="post" action="/account/recovery-codes" class="stack">${csrfField(user)}
${passwordInput(user.email)}
${codeInput('Code from the app', false)}
<button type="submit">Make new recovery codes</button></form>
<h2>Turn off</h2>
${turnOff}`;
  }
  return layout('Account security', body, user, notice);
}

/** The sign-in's second step: a code from the app, or a recovery code. */
export function codePage(notice: Notice | null): string {
  return layout(
    'Two-step sign-in',
    `<form method="post" action="/sign-in/code" class="stack">
<p id="code-hint" class="muted">Type the code your authenticator app shows now, or one of your recovery codes.</p>
${codeInput('Code', true)}
<button type="submit" class="primary">Sign in</button>
</form>
<p><a href="/sign-in">Start again</a></p>`,
    null,
    notice,
  );
}
