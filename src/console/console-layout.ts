// The console's page layout: the tenant's navigation, sign-out with its CSRF token, the notice of
// what just happened. Pages (one file each) are forms that work with a keyboard and without script,
// with labels on every input, and messages that name what went wrong without echoing what was typed.
import { escapeHtml as e } from './console-http.js';

/** The signed-in pages, in the navigation's order. */
export const CONSOLE_NAV: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/keys', label: 'API keys' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/webhooks/deliveries', label: 'Deliveries' },
  { href: '/playground', label: 'Playground' },
  { href: '/usage', label: 'Usage' },
  { href: '/account', label: 'Account' },
];

export interface PageUser {
  email: string;
  tenant: string;
  csrfToken: string;
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/**
 * A page. `scripts`: module scripts of the page's own, served by the console (/assets/...), loaded
 * after console.js; never inline (the CSP forbids it).
 */
export function layout(title: string, body: string, user: PageUser | null, notice: Notice | null = null, scripts: readonly string[] = []): string {
  const nav = user
    ? `<nav aria-label="Console">${CONSOLE_NAV.map((p) => `<a href="${p.href}">${e(p.label)}</a>`).join('')}</nav>
<div class="account-bar"><span class="muted">${e(user.email)} · ${e(user.tenant)}</span>
<form method="post" action="/sign-out" class="inline">${csrfField(user)}<button type="submit">Sign out</button></form>
<form method="post" action="/sign-out-everywhere" class="inline">${csrfField(user)}<button type="submit">Sign out everywhere</button></form></div>`
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
${scripts.map((src) => `<script type="module" src="${e(src)}"></script>\n`).join('')}</head>
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

export function messagePage(title: string, text: string, user: PageUser | null = null): string {
  return layout(title, `<p>${e(text)}</p><p><a href="${user ? '/keys' : '/sign-in'}">Continue</a></p>`, user);
}

export function csrfField(user: PageUser): string {
  return `<input type="hidden" name="csrf" value="${e(user.csrfToken)}">`;
}
