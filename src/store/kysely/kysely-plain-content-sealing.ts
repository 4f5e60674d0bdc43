// PlainContentSealing on SQLite and PostgreSQL (plain-content-sealing.ts). A value is plain when it
// lacks the sealed form's prefix; each is sealed under its tenant's data key with the same identity
// (additional data) its store seals it with, so the store opens it as if it had written it.
import { sql } from 'kysely';

import type { ContentSealer } from '../content-sealer.js';
import type { PlainContentSealing, SealedColumn } from '../plain-content-sealing.js';
import { SEALED_TEXT_PREFIX } from '../sealed-buffer.js';
import { idempotencyBodyAad } from './kysely-idempotency-store.js';
import { dictionaryAad } from './kysely-key-store.js';
import { voiceProfileAad } from './kysely-voice-profile-store.js';
import { progressAad, requestAad } from './sealed-job-columns.js';
import type { StoreDb } from './store-schema.js';

/** The LIKE pattern of a sealed value (the prefix holds neither `%` nor `_`). */
const SEALED = `${SEALED_TEXT_PREFIX}%`;

export class KyselyPlainContentSealing implements PlainContentSealing {
  constructor(
    private readonly db: StoreDb,
    private readonly sealer: ContentSealer,
  ) {}

  async sealBatch(limit: number): Promise<number> {
    return (
      (await this.jobColumn('request', limit)) +
      (await this.jobColumn('progress', limit)) +
      (await this.answers(limit)) +
      (await this.voices(limit)) +
      (await this.dictionaries(limit))
    );
  }

  async plainCounts(): Promise<Record<SealedColumn, number>> {
    const count = sql<number>`count(*)`.as('n');
    const [request, progress, answers, voices, dictionaries] = await Promise.all([
      this.db.selectFrom('jobs').select(count).where('request', 'not like', SEALED).executeTakeFirstOrThrow(),
      this.db.selectFrom('jobs').select(count).where('progress', 'is not', null).where('progress', 'not like', SEALED).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('idempotency_records')
        .select(count)
        .where('response_body', 'is not', null)
        .where('response_body', 'not like', SEALED)
        .executeTakeFirstOrThrow(),
      this.db.selectFrom('voice_profiles').select(count).where('profile', 'not like', SEALED).executeTakeFirstOrThrow(),
      this.db.selectFrom('key_dictionaries').select(count).where('terms', 'not like', SEALED).executeTakeFirstOrThrow(),
    ]);
    return {
      'jobs.request': Number(request.n),
      'jobs.progress': Number(progress.n),
      'idempotency_records.response_body': Number(answers.n),
      'voice_profiles.profile': Number(voices.n),
      'key_dictionaries.terms': Number(dictionaries.n),
    };
  }

  private async jobColumn(column: 'request' | 'progress', limit: number): Promise<number> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id', 'tenant', column])
      .where(column, 'is not', null)
      .where(column, 'not like', SEALED)
      .limit(limit)
      .execute();
    const aad = column === 'request' ? requestAad : progressAad;
    let sealed = 0;
    for (const row of rows) {
      const plain = row[column] as string;
      const value = await this.sealer.sealText(row.tenant, aad(row.id), plain);
      const { numUpdatedRows } = await this.db
        .updateTable('jobs')
        .set({ [column]: value })
        .where('id', '=', row.id)
        .where(column, '=', plain)
        .executeTakeFirst();
      sealed += Number(numUpdatedRows);
    }
    return sealed;
  }

  private async answers(limit: number): Promise<number> {
    const rows = await this.db
      .selectFrom('idempotency_records')
      .select(['tenant', 'key', 'response_body'])
      .where('response_body', 'is not', null)
      .where('response_body', 'not like', SEALED)
      .limit(limit)
      .execute();
    let sealed = 0;
    for (const row of rows) {
      const value = await this.sealer.sealText(row.tenant, idempotencyBodyAad(row.tenant, row.key), row.response_body!);
      const { numUpdatedRows } = await this.db
        .updateTable('idempotency_records')
        .set({ response_body: value })
        .where('tenant', '=', row.tenant)
        .where('key', '=', row.key)
        .where('response_body', '=', row.response_body)
        .executeTakeFirst();
      sealed += Number(numUpdatedRows);
    }
    return sealed;
  }

  private async voices(limit: number): Promise<number> {
    const rows = await this.db.selectFrom('voice_profiles').select(['id', 'tenant', 'profile']).where('profile', 'not like', SEALED).limit(limit).execute();
    let sealed = 0;
    for (const row of rows) {
      const value = await this.sealer.sealText(row.tenant, voiceProfileAad(row.id), row.profile);
      const { numUpdatedRows } = await this.db
        .updateTable('voice_profiles')
        .set({ profile: value })
        .where('id', '=', row.id)
        .where('profile', '=', row.profile)
        .executeTakeFirst();
      sealed += Number(numUpdatedRows);
    }
    return sealed;
  }

  /** A dictionary's tenant is its key's. */
  private async dictionaries(limit: number): Promise<number> {
    const rows = await this.db
      .selectFrom('key_dictionaries')
      .innerJoin('api_keys', 'api_keys.id', 'key_dictionaries.key_id')
      .select(['key_dictionaries.key_id', 'key_dictionaries.language', 'key_dictionaries.terms', 'api_keys.tenant'])
      .where('key_dictionaries.terms', 'not like', SEALED)
      .limit(limit)
      .execute();
    let sealed = 0;
    for (const row of rows) {
      const value = await this.sealer.sealText(row.tenant, dictionaryAad(row.key_id, row.language), row.terms);
      const { numUpdatedRows } = await this.db
        .updateTable('key_dictionaries')
        .set({ terms: value })
        .where('key_id', '=', row.key_id)
        .where('language', '=', row.language)
        .where('terms', '=', row.terms)
        .executeTakeFirst();
      sealed += Number(numUpdatedRows);
    }
    return sealed;
  }
}
