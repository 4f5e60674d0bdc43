// The console's answer to a failure outside its pages' own refusals (src/console/console-errors.ts),
// on the console app itself: a store that fails (a database gone, say) gives a 500 page that shows
// nothing of the error and carries the security headers; Fastify's own refusals keep their status.
import t from 'tap';

import { buildConsoleApp } from '../../src/console/console-app.js';
import type { ConsoleDeps } from '../../src/console/console-context.js';

const FAILURE = 'connect ECONNREFUSED 10.20.30.40:5432 (console_sessions)';

t.test('a failing store: a 500 page that names nothing of the failure', async (t) => {
  const failing = {
    session: async () => {
      throw new Error(FAILURE);
    },
    countSignInAttempt: async () => {
      throw new Error(FAILURE);
    },
  };
  const app = buildConsoleApp({ clock: () => 0, secureCookies: false, realtimeUrl: null, accounts: failing, stores: {} } as unknown as ConsoleDeps);
  t.teardown(() => app.close());
  for (const request of [
    { method: 'GET' as const, url: '/keys', headers: { cookie: `svc_console_session=${'A'.repeat(43)}` } },
    { method: 'POST' as const, url: '/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a%40b.example&password=x' },
  ]) {
    const answer = await app.inject(request);
    t.equal(answer.statusCode, 500, `${request.method} ${request.url}`);
    t.match(answer.headers['content-type'], /^text\/html/);
    t.match(answer.body, /Something went wrong/);
    t.notMatch(answer.body, /ECONNREFUSED|10\.20\.30\.40|console_sessions/, 'nothing of the error is shown');
    t.match(answer.headers['content-security-policy'], /default-src 'none'/);
    t.equal(answer.headers['x-frame-options'], 'DENY');
  }
});

t.test("Fastify's own refusals keep their status, as a page", async (t) => {
  const app = buildConsoleApp({ clock: () => 0, secureCookies: false, realtimeUrl: null, stores: {} } as unknown as ConsoleDeps);
  t.teardown(() => app.close());
  const tooLarge = await app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `email=a%40b.example&password=${'x'.repeat(20_000)}`,
  });
  t.equal(tooLarge.statusCode, 413, 'a form over the body limit');
  t.match(tooLarge.body, /does not take this request \(413\)/);
  const json = await app.inject({ method: 'POST', url: '/sign-in', headers: { 'content-type': 'application/json' }, payload: '{"email":1}' });
  t.equal(json.statusCode, 415, 'a JSON body');
  t.match(json.headers['content-type'], /^text\/html/);
  t.equal(json.headers['x-frame-options'], 'DENY');
});
