// Tenants' data keys (src/store/kysely/kysely-tenant-keys.ts) on SQLite and on PostgreSQL: created on
// first use, stored only wrapped, one key per tenant even when two processes create it at once, and
// content sealed through them (src/store/content-sealer.ts) opens only for its tenant and object.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

import t, { type Test } from 'tap';

import { ContentSealer } from '../../src/store/content-sealer.js';
import { erasedTenantDigest, TenantErasedError } from '../../src/store/erased-tenants.js';
import { KyselyTenantKeys } from '../../src/store/kysely/kysely-tenant-keys.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { StoreDb } from '../../src/store/kysely/store-schema.js';
import { LocalKeyProvider } from '../../src/store/master-keys.js';
import { SealingError } from '../../src/store/sealing-error.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

interface Harness {
  db: StoreDb;
  another(): Promise<StoreDb>;
  close(): Promise<void>;
}

const harnesses: Record<string, (t: Test) => Promise<Harness>> = {
  SQLite: async (t) => {
    const databases = await sqliteDatabases(t);
    return { db: sqliteStoreDb(databases.db), another: async () => sqliteStoreDb(await databases.open()), close: databases.close };
  },
  PostgreSQL: async () => {
    const databases = await postgresDatabases();
    return { db: postgresStoreDb(databases.db), another: async () => postgresStoreDb(await databases.open()), close: databases.close };
  },
};

for (const [name, open] of Object.entries(harnesses)) {
  t.test(name, async (t) => {
    const master = randomBytes(32);
    const provider = new LocalKeyProvider([master]);
    const keysOn = (db: StoreDb, withProvider = provider) => new KyselyTenantKeys(db, () => withProvider);

    t.test('a tenant gets one data key on first use, stored wrapped and naming its master key', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const keys = keysOn(h.db);
      t.same(await keys.masterKeyIdsInUse(), []);
      const first = await keys.current('tenant-a');
      t.equal(first.version, 1);
      t.equal(first.key.length, 32);
      t.ok((await keys.current('tenant-a')).key.equals(first.key), 'the same key next time');
      t.ok((await keysOn(h.db).version('tenant-a', 1)).equals(first.key), 'another process unwraps the same');
      t.notOk((await keys.current('tenant-b')).key.equals(first.key), 'another tenant, another key');
      const rows = await h.db.selectFrom('tenant_data_keys').selectAll().execute();
      t.equal(rows.length, 2);
      t.ok(rows.every((row) => row.master_key_id === provider.activeKeyId && !Buffer.from(row.wrapped).includes(first.key)));
      t.same(await keys.masterKeyIdsInUse(), [provider.activeKeyId]);
      await t.rejects(keys.version('tenant-a', 2), SealingError);
      await t.rejects(keysOn(h.db, new LocalKeyProvider([randomBytes(32)])).version('tenant-a', 1), new RegExp(provider.activeKeyId));
    });

    t.test('two processes creating the first key at once agree on it', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const [a, b] = await Promise.all([keysOn(h.db).current('tenant-a'), keysOn(await h.another()).current('tenant-a')]);
      t.ok(a.key.equals(b.key));
      t.equal((await h.db.selectFrom('tenant_data_keys').selectAll().execute()).length, 1);
    });

    t.test('a rotated tenant seals new content under the new version and still opens the old', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const sealer = new ContentSealer(keysOn(h.db));
      const old = await sealer.sealText('tenant-a', 'voice:1', 'before the rotation');
      const [a, b] = await Promise.all([keysOn(h.db).rotate('tenant-a'), keysOn(await h.another()).rotate('tenant-a')]);
      t.same([a, b].sort(), [2, 3], 'two rotations at once make two versions');
      t.equal(await sealer.keys.rotate('tenant-a'), 4);
      t.equal((await sealer.keys.current('tenant-a')).version, 4, 'the rotating process seals under the new version at once');
      const fresh = await sealer.sealText('tenant-a', 'voice:2', 'after the rotation');
      t.equal(await sealer.openText('tenant-a', 'voice:1', old), 'before the rotation');
      t.equal(await sealer.openText('tenant-a', 'voice:2', fresh), 'after the rotation');
      await h.db.deleteFrom('tenant_data_keys').where('tenant', '=', 'tenant-a').where('version', '=', 1).execute();
      await t.rejects(new ContentSealer(keysOn(h.db)).openText('tenant-a', 'voice:1', old), SealingError, 'its key destroyed, old content is unreadable');
      t.equal(await new ContentSealer(keysOn(h.db)).openText('tenant-a', 'voice:2', fresh), 'after the rotation');
    });

    t.test('an erased tenant gets no data key again, in any process; others do', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const late = new ContentSealer(keysOn(await h.another()));
      await late.sealText('tenant-a', 'x', 'before');
      t.equal(await keysOn(h.db).erase('tenant-a'), 1, 'its key destroyed');
      await t.rejects(late.sealText('tenant-a', 'x', 'after'), TenantErasedError, 'a process that had its key seals nothing for it');
      await t.rejects(keysOn(h.db).current('tenant-a'), TenantErasedError, 'nor a fresh one');
      await t.rejects(keysOn(h.db).rotate('tenant-a'), TenantErasedError, 'nor is it rotated back into being');
      t.same(await h.db.selectFrom('tenant_data_keys').selectAll().where('tenant', '=', 'tenant-a').execute(), []);
      t.equal(await keysOn(h.db).erase('tenant-a'), 0, 'erasing again is harmless');
      const record = await h.db.selectFrom('erased_tenants').selectAll().execute();
      t.same(record, [{ tenant_digest: erasedTenantDigest('tenant-a') }], 'one record, a digest');
      t.notMatch(JSON.stringify(record), 'tenant-a', 'not the id');
      t.equal((await keysOn(h.db).current('tenant-b')).version, 1, 'another tenant is not affected');
    });

    t.test('sealed content opens only for its tenant and object; plain content stays readable', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const sealer = new ContentSealer(keysOn(h.db));
      const sealed = await sealer.sealText('tenant-a', 'jobs.request:job_1', '{"prompt":"metoprolol 50 mg"}');
      t.notMatch(sealed, /metoprolol/);
      t.equal(await sealer.openText('tenant-a', 'jobs.request:job_1', sealed), '{"prompt":"metoprolol 50 mg"}');
      await t.rejects(sealer.openText('tenant-a', 'jobs.request:job_2', sealed), SealingError, 'swapped onto another job');
      await sealer.sealText('tenant-b', 'x', 'y');
      await t.rejects(sealer.openText('tenant-b', 'jobs.request:job_1', sealed), SealingError, 'another tenant');
      t.equal(await sealer.openText('tenant-a', 'jobs.request:job_1', '{"legacy":true}'), '{"legacy":true}');

      const audio = randomBytes(200_000);
      const sealedAudio = await buffer(Readable.from([audio]).pipe(await sealer.sealStream('tenant-a', 'jobs.audio:job_1')));
      t.ok((await buffer(Readable.from([sealedAudio]).pipe(sealer.openStream('tenant-a', 'jobs.audio:job_1')))).equals(audio));
    });
  });
}
