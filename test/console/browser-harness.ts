// What every browser test of the console shares: Debian's Chromium (SVC_TEST_CHROMIUM names another
// binary; the tests skip without one), axe-core's serious and critical violations, a screenshot of each
// page under test/.cache/console-screenshots/ (PNG), and moving the focus with the keyboard alone.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { type Browser, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

import { startTestService, type TestService } from '../helpers/test-service.js';

export const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SKIP = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`;
const SCREENSHOTS = join(import.meta.dirname, '..', '.cache', 'console-screenshots');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: unknown[] }>;
}

/** axe-core's serious and critical violations on the page as it is now (injected through the devtools protocol, not as a page script). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as AxeResult;
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
}

export async function checkPage(t: Test, page: Page, name: string): Promise<void> {
  t.same(await axeViolations(page), [], `${name}: no serious or critical accessibility violation`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Presses Tab until the element matching `selector` has the focus (keyboard only), at most 30 times. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * A browser test file's service (SQLite, defaults) and Chromium: started before its tests, closed after
 * them; nothing is started when SKIP. Read `svc` and `browser` inside the tests.
 */
export function consoleInBrowser(t: Test): { svc: TestService; browser: Browser } {
  const started = {} as { svc: TestService; browser: Browser };
  t.before(async () => {
    if (SKIP) return;
    started.svc = await startTestService();
    started.browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  t.teardown(async () => {
    await started.browser?.close();
    await started.svc?.close();
  });
  return started;
}
