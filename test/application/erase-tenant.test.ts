// Erasing a tenant (src/application/erase-tenant.ts) on SQLite with the local blob store and on
// PostgreSQL with an S3 bucket (s3rver), with the real stores: of two tenants with something in every table, the erased one leaves no row
// anywhere that names it, its keys or its jobs (every table of the schema is read), its blobs are gone,
// its running job's worker loses its lease, a realtime session under its key is cut off, a value sealed
// under its data key before the erasure opens nowhere, and the other tenant reads all of its content as
// before. A worker of another process that still holds its job has its late writes refused: no data
// key is made for the tenant again and nothing of it is stored. A second run reports zeros.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { eraseTenant, erasureAuditLine } from '../../src/application/erase-tenant.js';
import { KeyStandingWatch } from '../../src/billing/key-standing-watch.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { TenantErasedError } from '../../src/store/erased-tenants.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { StoreDb } from '../../src/store/kysely/store-schema.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { SealedBlobStore } from '../../src/store/sealed-blob-store.js';
import { SealingError } from '../../src/store/sealing-error.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { PLANTED_PHRASE, plantTenant } from '../helpers/planted-tenant.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { s3StoreSettings, startS3Server } from '../helpers/s3-server.js';

interface Harness {
  open(): Promise<Stores>;
  /** A plain handle on the same database, for reading every table. */
  raw(): Promise<StoreDb>;
  dataDir: string;
  /** Where the tenants' job audio and results are. */
  blobs: BlobStore;
}

const MASTER_KEY = randomBytes(32);

const harnesses: Record<string, (t: Test) => Promise<Harness>> = {
  SQLite: async (t) => {
    const dataDir = join(t.testdir(), 'data');
    return {
      dataDir,
      blobs: new LocalBlobStore(join(dataDir, 'blobs')),
      open: () => openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => MASTER_KEY }),
      raw: async () => {
        const db = openDatabase(databasePath(dataDir));
        t.teardown(() => db.close());
        return sqliteStoreDb(db);
      },
    };
  },
  PostgreSQL: async (t) => {
    const dataDir = join(t.testdir(), 'data');
    const url = await (await sharedPostgres()).createDatabase();
    const s3 = await startS3Server();
    t.teardown(() => s3.close());
    const blobs = new S3BlobStore(s3StoreSettings(s3, join(t.testdir(), 'spool')));
    t.teardown(() => blobs.close());
    return {
      dataDir,
      blobs,
      open: () => openStores({ instanceId: 'test', dataDir, databaseUrl: url, webhookMasterKey: () => MASTER_KEY }),
      raw: async () => {
        const db = await openPostgres(url);
        t.teardown(() => db.close());
        return postgresStoreDb(db);
      },
    };
  },
};

/** Every row of every table, as text (bytes as hex), table by table. */
async function everyRow(db: StoreDb): Promise<Record<string, string>> {
  const tables = (await db.introspection.getTables()).map((table) => table.name).filter((name) => name !== 'schema_migrations');
  const rows: Record<string, string> = {};
  for (const table of tables) {
    const read = await db
      .selectFrom(table as 'jobs')
      .selectAll()
      .execute();
    rows[table] = JSON.stringify(read, (_key, value: unknown) =>
      value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer'
        ? Buffer.from((value as { data: number[] }).data).toString('hex')
        : value,
    );
  }
  return rows;
}

for (const [name, harness] of Object.entries(harnesses)) {
  t.test(name, async (t) => {
    const h = await harness(t);
    const stores = await h.open();
    t.teardown(() => stores.close());
    const blobs = h.blobs;
    const gone = await plantTenant(stores, blobs, 'clinic-gone');
    const kept = await plantTenant(stores, blobs, 'clinic-kept');
    const sealedBefore = await stores.sealer.sealText(gone.tenant, 'probe:1', PLANTED_PHRASE);
    const names = [gone.tenant, ...gone.keyIds, ...gone.jobIds, gone.voiceId];
    const raw = await h.raw();
    const before = await everyRow(raw);
    for (const id of names)
      t.ok(
        Object.values(before).some((rows) => rows.includes(id)),
        `${id} is in the database before`,
      );
    const tablesOfGone = Object.keys(before).filter((table) => before[table]!.includes(gone.tenant) || gone.keyIds.some((id) => before[table]!.includes(id)));
    t.ok(tablesOfGone.length >= 16, `the planted tenant is in ${tablesOfGone.length} tables: ${tablesOfGone.join(', ')}`);

    // A realtime session under one of its keys watches the key (src/billing/key-standing-watch.ts).
    const watch = new KeyStandingWatch(stores.keys, 20);
    t.teardown(() => watch.close());
    const sessionCutOff = new Promise((resolve) => watch.watch(gone.keyIds[0]!, resolve));

    // Another process, whose worker holds the tenant's running job and has its data key in memory.
    const worker = await h.open();
    t.teardown(() => worker.close());
    const stored: string[] = [];
    const watched = Object.assign(Object.create(blobs) as BlobStore, {
      writeResult: (jobId: string, result: Parameters<BlobStore['writeResult']>[1], data: string | Uint8Array) => {
        stored.push(`${jobId} ${result.kind}`);
        return blobs.writeResult(jobId, result, data);
      },
    });
    const workerBlobs = new SealedBlobStore(watched, worker.sealer);
    t.teardown(() => workerBlobs.close());
    await worker.sealer.sealText(gone.tenant, 'probe:worker', 'cached');

    const erasure = await eraseTenant({ tenantKeys: stores.tenantKeys, erasure: stores.tenantErasure, blobs }, gone.tenant);
    t.match(erasure, { tenant: gone.tenant, jobs: 2, blobsDeleted: gone.refs.length, blobsFailed: 0 });
    t.ok(erasure.dataKeysDestroyed >= 1, 'its data key destroyed');
    t.same([...erasure.apiKeyIds].sort(), [...gone.keyIds].sort());
    const audit = JSON.stringify(erasureAuditLine(erasure, 0));
    t.notMatch(audit, PLANTED_PHRASE, 'the audit line has no content');
    t.notMatch(audit, gone.jobIds[0]!, 'nor job ids (counts only)');

    const after = await everyRow(raw);
    for (const [table, rows] of Object.entries(after)) {
      for (const id of names) t.notOk(rows.includes(id), `${table} has no row naming ${id}`);
      t.notOk(rows.includes(PLANTED_PHRASE), `${table} holds no planted phrase in clear`);
    }
    for (const ref of gone.refs) t.notOk(await blobs.exists(ref), `${ref} is deleted`);
    t.equal(await sessionCutOff, 'revoked', 'its realtime sessions are told to end');
    t.notOk(await stores.jobs.heartbeat(gone.runningJobId, 'w-clinic-gone', 2_000_000, 60_000), 'the worker of its running job loses its lease');

    // That worker's late writes: refused before anything is sealed or stored, and no data key is made again.
    const late = workerBlobs.forTenant(gone.tenant);
    await t.rejects(late.writeResult(gone.runningJobId, { kind: 'partial', revision: 2 }, PLANTED_PHRASE), TenantErasedError, 'its result write is refused');
    await t.rejects(late.writeResult(gone.runningJobId, { kind: 'final' }, PLANTED_PHRASE), TenantErasedError);
    await t.rejects(worker.sealer.sealText(gone.tenant, 'probe:late', PLANTED_PHRASE), TenantErasedError, 'nothing is sealed for it');
    t.notOk(
      await worker.jobs.commitChunk(
        gone.runningJobId,
        'w-clinic-gone',
        { progress: { text: PLANTED_PHRASE }, completedAudioSeconds: 9, audioSeconds: 10, partialPath: null },
        2_000_000,
      ),
      'its chunk commit finds no job',
    );
    t.same(stored, [], 'nothing reached the blob store');
    t.same(await raw.selectFrom('tenant_data_keys').selectAll().where('tenant', '=', gone.tenant).execute(), [], 'no data key was made again');
    t.equal((await raw.selectFrom('erased_tenants').selectAll().execute()).length, 1, 'one erased tenant recorded, by a digest of its id');
    await t.rejects(
      worker.keys.create({ tenant: gone.tenant }),
      { code: 'invalid_argument', message: /was erased: its id is not used again/ },
      'its id is not reused',
    );
    await t.rejects(worker.keys.createForTenant(gone.tenant), { code: 'invalid_argument' });

    await t.rejects(stores.sealer.openText(gone.tenant, 'probe:1', sealedBefore), SealingError, 'sealed content from before opens nowhere here');
    const fresh = await h.open();
    t.teardown(() => fresh.close());
    await t.rejects(fresh.sealer.openText(gone.tenant, 'probe:1', sealedBefore), SealingError, 'nor in a process started after');

    // The other tenant: every row and blob as before, and its content opens.
    for (const table of Object.keys(before)) {
      if (!before[table]!.includes(kept.tenant)) continue;
      t.ok(after[table]!.includes(kept.tenant), `${table} still has ${kept.tenant}`);
    }
    for (const ref of kept.refs) t.ok(await blobs.exists(ref), `${ref} is kept`);
    t.match((await fresh.jobs.get(kept.finishedJobId, kept.tenant))?.request, { prompt: `${PLANTED_PHRASE} ${kept.tenant}-a` });
    t.ok(await fresh.voices.get(kept.tenant, kept.voiceId));
    t.match(await fresh.idempotency.begin(kept.tenant, 'idem-1', 'fp'), { state: 'completed', response: { body: PLANTED_PHRASE } });
    t.equal((await fresh.keys.list(kept.tenant)).length, 2);

    const again = await eraseTenant({ tenantKeys: fresh.tenantKeys, erasure: fresh.tenantErasure, blobs }, gone.tenant);
    t.match(again, { dataKeysDestroyed: 0, apiKeyIds: [], jobs: 0, blobsDeleted: 0 });
    t.ok(
      Object.values(again.rows).every((n) => n === 0),
      'a second run finds nothing',
    );
    await t.rejects(eraseTenant({ tenantKeys: fresh.tenantKeys, erasure: fresh.tenantErasure, blobs }, 'no/such tenant'), /tenant must be 1 to 128/);
  });
}
