// The pages of a signed-out visitor: sign-in, and an invite's password form.
import { escapeHtml as e } from './console-http.js';
import { layout, type Notice } from './console-layout.js';

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
