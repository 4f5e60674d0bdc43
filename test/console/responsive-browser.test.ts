// The console at a phone's, a tablet's and a small laptop's width (390, 768 and 1,024 px) in a real
// browser (Debian's Chromium, playwright-core): on every signed-in page nothing runs off the side (the
// document is no wider than the window), every header control (navigation, sign-out, sign-out
// everywhere) lies inside the window, and every input lies inside its card (the form or fieldset
// holding it). A wide table scrolls inside its own box instead. Screenshots under
// test/.cache/console-screenshots/ (responsive-<page>-<width>.png).
import type { Page } from 'playwright-core';
import t from 'tap';

import { checkPage, consoleInBrowser, SKIP } from './browser-harness.js';
import { newMember } from './console-client.js';

const PASSWORD = 'walnut-sphygmo-4412';
const TENANT = 'clinic-responsive';
const WIDTHS = [390, 768, 1024];
const PAGES = ['/keys', '/webhooks', '/webhooks/deliveries', '/playground', '/usage', '/account'];

const started = consoleInBrowser(t);

interface Layout {
  overflow: string | null;
  headerOutside: string[];
  inputsOutside: string[];
}

/** What runs off the page at its current width (run in the page). */
async function layoutProblems(page: Page): Promise<Layout> {
  // The tests load through tsx, whose esbuild keeps function names by wrapping named functions in
  // `__name(...)`: a function sent to the page as its source text needs that helper there too.
  await page.evaluate('globalThis.__name ??= (fn) => fn');
  return page.evaluate(() => {
    const width = window.innerWidth;
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''} "${(el.textContent ?? '').trim()}"`;
    const inside = (inner: DOMRect, outer: { left: number; right: number }) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
    const scrollWidth = document.documentElement.scrollWidth;
    const headerOutside = [...document.querySelectorAll('header a, header button, header .muted')]
      .filter((el) => !inside(el.getBoundingClientRect(), { left: 0, right: width }))
      .map(name);
    const inputsOutside = [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea')]
      .filter((el) => {
        // An input in a table scrolls with the table's own box; the card is the form or fieldset around it.
        const card = el.closest('fieldset, form');
        return card !== null && el.getClientRects().length > 0 && !inside(el.getBoundingClientRect(), card.getBoundingClientRect());
      })
      .map(name);
    // The element reaching furthest right names the culprit in a failure's message.
    const widest = [...document.querySelectorAll('body *')].reduce<Element | null>(
      (far, el) => (far === null || el.getBoundingClientRect().right > far.getBoundingClientRect().right ? el : far),
      null,
    );
    const culprit = widest ? ` (${widest.tagName.toLowerCase()}.${widest.className})` : '';
    return { overflow: scrollWidth > width ? `${scrollWidth} px wide in ${width} px${culprit}` : null, headerOutside, inputsOutside };
  });
}

t.test('every signed-in page fits 390, 768 and 1,024 px: no overflow, header and inputs inside', { skip: SKIP }, async (t) => {
  const { id } = await started.svc.createKey({ tenant: TENANT, plan: 'builder' });
  const member = await newMember(started.svc, TENANT, PASSWORD);
  const base = started.svc.service.consoleUrl!;
  const context = await started.browser.newContext();
  await context.addCookies([{ name: 'svc_console_session', value: member.cookie!, url: base }]);
  const page = await context.newPage();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of [...PAGES, `/keys/${id}/revoke`, '/no-such-page']) {
      await page.goto(`${base}${path}`);
      t.equal(new URL(page.url()).pathname, path, `${path} at ${width} px: the page itself`);
      const problems = await layoutProblems(page);
      t.equal(problems.overflow, null, `${path} at ${width} px: no horizontal overflow`);
      t.same(problems.headerOutside, [], `${path} at ${width} px: every header control inside the window`);
      t.same(problems.inputsOutside, [], `${path} at ${width} px: every input inside its card`);
    }
    await page.goto(`${base}/keys`);
    await checkPage(t, page, `responsive-keys-${width}`);
  }
  await page.setViewportSize({ width: 390, height: 900 });
  await context.clearCookies();
  await page.goto(`${base}/sign-in`);
  const signIn = await layoutProblems(page);
  t.same(signIn, { overflow: null, headerOutside: [], inputsOutside: [] }, 'the sign-in page at 390 px');
  await context.close();
});
