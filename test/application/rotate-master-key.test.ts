// A master key rotation (src/application/rotate-master-key.ts) on SQLite and on PostgreSQL, with the
// real stores: content sealed under the old key (data keys of several tenants, one with two versions, a
// webhook signing secret, a console TOTP secret) is moved to the new key in small batches while another
// process seals and opens content and a second rotation runs at once. Afterwards a process that knows
// only the new key starts and reads everything, one that knows only the old key is refused naming the
// new one, the old key is reported retired, and running it again changes nothing.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { rotateMasterKey } from '../../src/application/rotate-master-key.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { masterKeyIdOf } from '../../src/store/master-keys.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { MissingMasterKeyError } from '../../src/store/sealing-error.js';
import { PLANTED_PHRASE, plantTenant } from '../helpers/planted-tenant.js';
import { sharedPostgres } from '../helpers/postgres-server.js';

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const ids = { active: masterKeyIdOf(NEW), previous: [masterKeyIdOf(OLD)] };
const TENANTS = 7;

const databases: Record<string, (t: Test) => Promise<string | null>> = {
  SQLite: async () => null,
  PostgreSQL: async () => (await sharedPostgres()).createDatabase(),
};

for (const [name, database] of Object.entries(databases)) {
  t.test(name, async (t) => {
    const dataDir = join(t.testdir(), 'data');
    const databaseUrl = await database(t);
    const open = async (active: Buffer, previous: Buffer[] = []): Promise<Stores> => {
      const stores = await openStores({ instanceId: 'test', dataDir, databaseUrl, webhookMasterKey: () => active, previousMasterKeys: () => previous });
      t.teardown(() => stores.close());
      return stores;
    };

    // Before: everything under the old key, as an installation has it today.
    const before = await open(OLD);
    const planted = await plantTenant(before, new LocalBlobStore(join(dataDir, 'blobs')), 'clinic-a');
    const [user] = await before.consoleAccounts.listUsers('clinic-a');
    const totp = randomBytes(20);
    await before.consoleSecondFactors.beginTotp(user!.id, totp, 1_000);
    const signing = await before.webhookSecrets.signingKeys(planted.keyIds[0]!, Date.now());
    const sealed: { tenant: string; aad: string; value: string }[] = [];
    for (let i = 0; i < TENANTS; i++) {
      const tenant = `tenant-${i}`;
      sealed.push({ tenant, aad: `probe:${i}`, value: await before.sealer.sealText(tenant, `probe:${i}`, `${PLANTED_PHRASE} ${i}`) });
    }
    await before.tenantKeys.rotate('tenant-0');
    sealed.push({ tenant: 'tenant-0', aad: 'probe:v2', value: await before.sealer.sealText('tenant-0', 'probe:v2', 'after a tenant rotation') });
    const dataKeys = TENANTS + 2; // tenant-0 has two versions, clinic-a one
    t.same(await before.tenantKeys.masterKeyIdsInUse(), [masterKeyIdOf(OLD)]);

    // During: two rotations at once, and a process sealing and opening content meanwhile.
    const [rotating, alsoRotating, working] = [await open(NEW, [OLD]), await open(NEW, [OLD]), await open(NEW, [OLD])];
    const progress: number[] = [];
    const work = async () => {
      const fresh: { tenant: string; aad: string; value: string }[] = [];
      for (let i = 0; i < 5; i++) {
        for (const probe of sealed) t.match(await working.sealer.openText(probe.tenant, probe.aad, probe.value), /./);
        const tenant = `new-tenant-${i}`;
        fresh.push({ tenant, aad: 'fresh', value: await working.sealer.sealText(tenant, 'fresh', `fresh ${i}`) });
        fresh.push({ tenant: `tenant-${i}`, aad: 'fresh', value: await working.sealer.sealText(`tenant-${i}`, 'fresh', `fresh old ${i}`) });
      }
      return fresh;
    };
    const [first, second, fresh] = await Promise.all([
      rotateMasterKey(rotating, ids, { batch: 2, onProgress: (n) => progress.push(n) }),
      rotateMasterKey(alsoRotating, ids, { batch: 3 }),
      work(),
    ]);
    t.equal(first.dataKeysRewrapped + second.dataKeysRewrapped, dataKeys, 'every old data key re-wrapped once, by one of the two');
    t.ok(progress.length >= 1, `progress reported: ${progress.join(', ')}`);
    t.equal(first.webhookSecretsResealed + second.webhookSecretsResealed, 1);
    t.equal(first.totpSecretsResealed + second.totpSecretsResealed, 1);
    for (const done of [first, second]) t.match(done, { inUse: [ids.active], retired: ids.previous });

    // After: the new key alone opens everything.
    const newOnly = await open(NEW);
    await newOnly.requireMasterKeys();
    for (const probe of [...sealed, ...fresh])
      t.match(await newOnly.sealer.openText(probe.tenant, probe.aad, probe.value), /./, `${probe.tenant} ${probe.aad}`);
    t.equal(await newOnly.sealer.openText('tenant-0', 'probe:v2', sealed.at(-1)!.value), 'after a tenant rotation');
    t.match((await newOnly.jobs.get(planted.finishedJobId, 'clinic-a'))?.request, { prompt: `${PLANTED_PHRASE} clinic-a-a` });
    t.ok(await newOnly.voices.get('clinic-a', planted.voiceId));
    t.match(await newOnly.idempotency.begin('clinic-a', 'idem-1', 'fp'), { state: 'completed', response: { body: PLANTED_PHRASE } });
    const signingAfter = await newOnly.webhookSecrets.signingKeys(planted.keyIds[0]!, Date.now());
    t.same(
      signingAfter.map((k) => k.key.toString('hex')),
      signing.map((k) => k.key.toString('hex')),
      'the webhook secret signs as before',
    );
    t.ok((await newOnly.consoleSecondFactors.totp(user!.id))?.secret.equals(totp), 'the TOTP secret opens');

    const oldOnly = await open(OLD);
    await t.rejects(oldOnly.requireMasterKeys(), MissingMasterKeyError);
    await t.rejects(oldOnly.requireMasterKeys(), new RegExp(ids.active), 'the refusal names the new key');

    const again = await rotateMasterKey(newOnly, { active: ids.active, previous: [] });
    t.match(again, { dataKeysRewrapped: 0, webhookSecretsResealed: 0, totpSecretsResealed: 0, inUse: [ids.active], retired: [] });
  });
}
