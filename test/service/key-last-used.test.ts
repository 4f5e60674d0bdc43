// A key's last use on the real service (micro model, the test store pair, the service's clock
// injected): an API request with the key records it, at most once a minute, and the console's keys
// page shows it ("never" until then); a realtime session records its key's use, whether the start
// presented the key or a client secret minted from it (POST /v1/realtime/client_secrets is a use of
// the key too, as any API request); a refused key (revoked, a wrong secret for a
// known id, a realtime start with a revoked key) records nothing.
import t from 'tap';

import { utcMinute } from '../../src/console/keys-page.js';
import { ConsoleClient, newMember } from '../console/console-client.js';
import { connectRealtime, type RealtimeClient, startMessage } from '../helpers/realtime-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const PASSWORD = 'juniper-otoscope-5531';
let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
/** How far the service's clock runs ahead of the wall clock: a test moves it past the minute. */
let aheadMs = 0;
const clock = () => new Date(Date.now() + aheadMs);

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { clock, logger: { level: 'info', stream: logs.stream } });
});
t.teardown(() => svc?.close());

const member = (tenant: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD, { nowMs: clock().getTime() });

/** An API request with the key (or anything presented as one); its status once the uses it noted are written. */
async function request(key: string): Promise<number> {
  const res = await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  await svc.service.keyUsesWritten();
  return res.status;
}

const lastUsed = async (id: string) => (await svc.stores.keys.get(id))!.lastUsedAt;

/** The "Last used" cell of the key's row on the keys page (the column after Created). */
function lastUsedCell(page: string, id: string): string | undefined {
  return new RegExp(`<td><code>${id}</code></td>\\n<td>[^<]*</td>\\n<td>([^<]*)</td>`).exec(page)?.[1];
}

/** Whether the ISO time lies between the two clock readings. */
function within(iso: string | null, fromMs: number, toMs: number): boolean {
  return iso !== null && Date.parse(iso) >= fromMs && Date.parse(iso) <= toMs;
}

/** A session started with `start`, up to `ready`; then stopped. */
async function session(start: Record<string, unknown>): Promise<RealtimeClient> {
  const client = await connectRealtime(svc.service.realtime!.url);
  client.start(start);
  return client;
}

async function stopped(client: RealtimeClient): Promise<number> {
  client.stop();
  return (await client.closed).code;
}

t.test('an API request records its key’s use, at most once a minute; the keys page shows it, "never" until then', async (t) => {
  const client = await member('clinic-used');
  const used = await svc.createKey({ tenant: 'clinic-used' });
  const idle = await svc.createKey({ tenant: 'clinic-used' });

  const before = await client.get('/keys');
  t.match(before.page, '<th scope="col">Last used</th>');
  t.equal(lastUsedCell(before.page, used.id), 'never');
  t.equal(lastUsedCell(before.page, idle.id), 'never');

  const from = clock().getTime();
  t.equal(await request(used.key), 200);
  const first = await lastUsed(used.id);
  t.ok(within(first, from, clock().getTime()), `recorded at the request: ${first}`);
  const after = await client.get('/keys');
  t.equal(lastUsedCell(after.page, used.id), utcMinute(first!), 'the date and time in UTC');
  t.match(lastUsedCell(after.page, used.id), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  t.equal(lastUsedCell(after.page, idle.id), 'never', 'a key not used stays never used');

  t.equal(await request(used.key), 200);
  t.equal(await lastUsed(used.id), first, 'within the minute: not written again');
  aheadMs += 61_000;
  const later = clock().getTime();
  t.equal(await request(used.key), 200);
  t.ok(within(await lastUsed(used.id), later, clock().getTime()), 'past the minute: the new use');
});

t.test('a refused key records nothing: revoked, or a wrong secret for a known id', async (t) => {
  const revoked = await svc.createKey();
  await svc.stores.keys.revoke(revoked.id);
  t.equal(await request(revoked.key), 401);
  t.equal(await lastUsed(revoked.id), null, 'revoked');

  const known = await svc.createKey();
  const wrong = known.key.slice(0, -1) + (known.key.endsWith('A') ? 'B' : 'A');
  t.equal(await request(wrong), 401);
  t.equal(await lastUsed(known.id), null, 'a wrong secret for its id');
  t.notMatch(logs.text(), /last use was not recorded/, 'no write failed along the way');
});

t.test('a realtime session records its key’s use, started with the key or with a client secret minted from it', async (t) => {
  const direct = await svc.createKey();
  const from = clock().getTime();
  const byKey = await session(startMessage(direct.key));
  await byKey.next('ready');
  await svc.service.keyUsesWritten();
  t.ok(within(await lastUsed(direct.id), from, clock().getTime()), 'started with the key');
  t.equal(await stopped(byKey), 1000);

  const minting = await svc.createKey();
  // Minted on the store (POST /v1/realtime/client_secrets would itself be a use of the key): what is
  // recorded is the session's start.
  const secret = await svc.stores.clientSecrets.mint(minting.id, clock().getTime(), clock().getTime() + 60_000);
  t.equal(await lastUsed(minting.id), null, 'not used yet');
  const started = clock().getTime();
  const { api_key: _key, ...start } = startMessage('');
  const bySecret = await session({ ...start, client_secret: secret });
  await bySecret.next('ready');
  await svc.service.keyUsesWritten();
  t.ok(within(await lastUsed(minting.id), started, clock().getTime()), 'started with a client secret: the key it was minted from');
  t.equal(await stopped(bySecret), 1000);

  const revoked = await svc.createKey();
  await svc.stores.keys.revoke(revoked.id);
  const refused = await session(startMessage(revoked.key));
  t.equal((await refused.closed).code, 4401, 'a revoked key opens no session');
  await svc.service.keyUsesWritten();
  t.equal(await lastUsed(revoked.id), null, 'and records no use');
});
