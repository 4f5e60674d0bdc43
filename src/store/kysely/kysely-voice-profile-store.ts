// Enrolled voices (see ../voice-profile-store.ts): one implementation for SQLite and PostgreSQL, on
// Kysely (store-db.ts). Every statement names the tenant, so no id reaches another tenant's row. The
// per-tenant limit is checked and the row inserted in one `immediate` transaction, which on PostgreSQL
// first takes an advisory lock on the tenant (SQLite's write lock does that by itself): two enrolments
// racing for the last place cannot both take it.
//
// A profile (speaker statistics: biometric data) is sealed under the tenant's data key, bound to its
// voice id; names and times stay plain for listing.
import { sql } from 'kysely';

import type { VoiceProfile } from '../../engine/speaker-diarizer.js';
import type { ContentSealer } from '../content-sealer.js';
import { enrolledVoiceOf, newVoiceId, serializeProfile, summaryOf, VOICE_ID } from '../voice-profile-record.js';
import { type EnrolledVoice, MAX_VOICES_PER_TENANT, VoiceLimitReached, type VoiceProfileStore, type VoiceSummary } from '../voice-profile-store.js';
import { immediate } from './immediate.js';
import { scrubDeleted } from './scrub-deleted.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

export const voiceProfileAad = (id: string) => `voice_profiles.profile:${id}`;

export class KyselyVoiceProfileStore implements VoiceProfileStore {
  constructor(
    private readonly db: StoreDb,
    private readonly sealer: ContentSealer,
  ) {}

  async create(tenant: string, name: string, profile: VoiceProfile, nowMs: number): Promise<VoiceSummary> {
    // Sealed before the transaction: a tenant's first key is created on this handle, not the transaction's.
    const id = newVoiceId();
    const sealed = await this.sealer.sealText(tenant, voiceProfileAad(id), serializeProfile(profile));
    return immediate(this.db, async (trx) => {
      if (onPostgresDb(trx)) await sql`SELECT pg_advisory_xact_lock(hashtext(${`voice_profiles:${tenant}`}))`.execute(trx);
      const { count } = await trx
        .selectFrom('voice_profiles')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('tenant', '=', tenant)
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_VOICES_PER_TENANT) throw new VoiceLimitReached();
      const row = { id, tenant, name, profile: sealed, created_at_ms: nowMs };
      await trx.insertInto('voice_profiles').values(row).execute();
      return summaryOf(row);
    });
  }

  async list(tenant: string): Promise<VoiceSummary[]> {
    const rows = await this.db
      .selectFrom('voice_profiles')
      .select(['id', 'name', 'created_at_ms'])
      .where('tenant', '=', tenant)
      .orderBy('created_at_ms')
      .orderBy('id')
      .execute();
    return rows.map(summaryOf);
  }

  async get(tenant: string, id: string): Promise<EnrolledVoice | null> {
    if (!VOICE_ID.test(id)) return null;
    const row = await this.db.selectFrom('voice_profiles').selectAll().where('tenant', '=', tenant).where('id', '=', id).executeTakeFirst();
    return row ? enrolledVoiceOf({ ...row, profile: await this.sealer.openText(tenant, voiceProfileAad(row.id), row.profile) }) : null;
  }

  async remove(tenant: string, id: string): Promise<boolean> {
    if (!VOICE_ID.test(id)) return false;
    const { numDeletedRows } = await this.db.deleteFrom('voice_profiles').where('tenant', '=', tenant).where('id', '=', id).executeTakeFirst();
    if (Number(numDeletedRows) === 0) return false;
    // Biometric data: gone from the files too, not only from the table (issue 43).
    await scrubDeleted(this.db);
    return true;
  }
}
