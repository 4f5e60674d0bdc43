// The per-address sign-in limit holds across API processes: two services on one PostgreSQL database
// (as scaled out) count one address's attempts together, so a second process gives no second quota.
// The 11th attempt in a minute, on either, is 429 with Retry-After; a minute later the address may try again.
import t from 'tap';

import { sharedPostgres } from '../helpers/postgres-server.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { ConsoleClient } from './console-client.js';

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const services: TestService[] = [];

t.before(async () => {
  const url = await (await sharedPostgres()).createDatabase();
  for (let i = 0; i < 2; i++) services.push(await startTestService({ SVC_DATABASE_URL: url }, { clock }));
});
t.teardown(async () => {
  for (const svc of services) await svc.close();
});

t.test('two API processes on one database: one count per address', async (t) => {
  const [a, b] = services.map((svc) => new ConsoleClient(svc.service.consoleUrl!));
  const attempt = (client: ConsoleClient, i: number) => client.post('/sign-in', { email: `guess-${i}@clinic.example`, password: 'guessing-away-1' });
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await attempt(i % 2 === 0 ? a : b, i)).status);
  t.same(statuses, Array(10).fill(401), 'ten attempts, five on each process');
  for (const [name, client] of [
    ['the first', a],
    ['the second', b],
  ] as const) {
    const refused = await attempt(client, 10);
    t.equal(refused.status, 429, `the 11th on ${name} process is refused`);
    const wait = Number(refused.headers.get('retry-after'));
    t.ok(wait >= 1 && wait <= 60, `Retry-After ${wait} s`);
    t.match(refused.page, /Too many sign-in attempts from this address/);
  }
  offsetMs += 61_000;
  t.equal((await attempt(b, 11)).status, 401, 'a minute later the address may try again');
});
