// PlainBlobSealing on SQLite and PostgreSQL (plain-content-sealing.ts): the jobs' rows name the blobs
// and their tenant, the blob store tells plain from sealed and seals (sealed-blob-store.ts).
//
// A result is sealed where it is, so its ref does not change. Job audio is sealed into a fresh copy
// and the row pointed at it in one conditional write, only while no worker holds the job: a worker
// takes the job's audio ref when it claims it, so one claiming after the write reads the sealed copy,
// and none is reading the plain one when it is deleted. A claim that wins the race leaves the row as it
// was; the sealed copy is deleted and a later walk tries again.
import { sql } from 'kysely';

import type { PlainBlobBatch, PlainBlobSealing } from '../plain-content-sealing.js';
import type { TenantBlobs, TenantBlobStore } from '../sealed-blob-store.js';
import type { StoreDb } from './store-schema.js';

const RESULT_COLUMNS = ['partial_path', 'result_path', 'redacted_audio_path', 'unredacted_path'] as const;

export class KyselyPlainBlobSealing implements PlainBlobSealing {
  constructor(
    private readonly db: StoreDb,
    private readonly blobs: TenantBlobs,
  ) {}

  async sealBatch(after: string | null, limit: number): Promise<PlainBlobBatch> {
    const rows = await this.jobsWithBlobs(after)
      .select(['id', 'tenant', 'status', 'lease_owner', 'audio_path', ...RESULT_COLUMNS])
      .orderBy('id')
      .limit(limit)
      .execute();
    let sealed = 0;
    let left = 0;
    for (const row of rows) {
      const blobs = this.blobs.forTenant(row.tenant);
      const held = row.lease_owner !== null;
      const refs = RESULT_COLUMNS.map((column) => row[column]).filter((ref): ref is string => ref !== null);
      for (const ref of refs) {
        const outcome = held ? await leftIfPlain(blobs, ref) : await sealing(blobs, ref, () => blobs.sealResultInPlace(ref).then(() => true));
        sealed += outcome === 'sealed' ? 1 : 0;
        left += outcome === 'left' ? 1 : 0;
      }
      if (row.audio_path !== null) {
        const audio = row.audio_path;
        const mayMove = !held && row.status !== 'awaiting_upload';
        const outcome = mayMove ? await sealing(blobs, audio, () => this.sealAudio(blobs, row.id, audio)) : await leftIfPlain(blobs, audio);
        sealed += outcome === 'sealed' ? 1 : 0;
        left += outcome === 'left' ? 1 : 0;
      }
    }
    return { next: rows.length < limit ? null : rows.at(-1)!.id, sealed, left };
  }

  async blobsAfter(after: string | null): Promise<number> {
    const named = sql.join(
      ['audio_path', ...RESULT_COLUMNS].map((column) => sql`(CASE WHEN ${sql.ref(column)} IS NOT NULL THEN 1 ELSE 0 END)`),
      sql` + `,
    );
    const row = await this.jobsWithBlobs(after)
      .select(sql<number>`coalesce(sum(${named}), 0)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private jobsWithBlobs(after: string | null) {
    return this.db
      .selectFrom('jobs')
      .where((eb) => eb.or(['audio_path' as const, ...RESULT_COLUMNS].map((column) => eb(column, 'is not', null))))
      .$if(after !== null, (query) => query.where('id', '>', after!));
  }

  /** Whether the row now names the sealed copy (the plain audio is then deleted). */
  private async sealAudio(blobs: TenantBlobStore, jobId: string, plain: string): Promise<boolean> {
    const copy = await blobs.sealedCopyOfAudio(plain);
    const { numUpdatedRows } = await this.db
      .updateTable('jobs')
      .set({ audio_path: copy })
      .where('id', '=', jobId)
      .where('audio_path', '=', plain)
      .where('lease_owner', 'is', null)
      .where('status', '!=', 'awaiting_upload')
      .executeTakeFirst();
    const moved = numUpdatedRows === 1n;
    // A plain copy that fails to go is no row's: the orphan sweep removes it.
    await blobs.delete(moved ? plain : copy).catch(() => {});
    return moved;
  }
}

type Outcome = 'sealed' | 'left' | 'none';

/** 'left' when the blob at `ref` is plain. */
async function leftIfPlain(blobs: TenantBlobStore, ref: string): Promise<Outcome> {
  return (await blobs.storedPlain(ref).catch(() => true)) === true ? 'left' : 'none';
}

/** Seals the blob at `ref` when it is plain; a failure leaves it for a later walk. */
async function sealing(blobs: TenantBlobStore, ref: string, seal: () => Promise<boolean>): Promise<Outcome> {
  try {
    if ((await blobs.storedPlain(ref)) !== true) return 'none';
    return (await seal()) ? 'sealed' : 'left';
  } catch {
    return 'left';
  }
}
