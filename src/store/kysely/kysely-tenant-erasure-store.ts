// TenantErasureStore (../tenant-erasure-store.ts) on SQLite or PostgreSQL: one transaction that deletes
// the rows hanging off the tenant's keys, jobs and console accounts first (subqueries on the parents,
// so no id list grows with the tenant), then the parents.
import type { DeleteResult } from 'kysely';

import type { TenantErasureStore, TenantRowsErasure } from '../tenant-erasure-store.js';
import { immediate } from './immediate.js';
import type { StoreDb } from './store-schema.js';

const count = (result: DeleteResult) => Number(result.numDeletedRows);

export class KyselyTenantErasureStore implements TenantErasureStore {
  constructor(private readonly db: StoreDb) {}

  erase(tenant: string): Promise<TenantRowsErasure> {
    return immediate(this.db, async (trx) => {
      const keys = () => trx.selectFrom('api_keys').select('id').where('tenant', '=', tenant);
      const jobIds = () => trx.selectFrom('jobs').select('id').where('tenant', '=', tenant);
      const users = () => trx.selectFrom('console_users').select('id').where('tenant', '=', tenant);
      const keyIds = (await keys().execute()).map((row) => row.id);
      const jobRows = await trx
        .selectFrom('jobs')
        .select(['id', 'audio_path', 'partial_path', 'result_path', 'redacted_audio_path', 'unredacted_path'])
        .where('tenant', '=', tenant)
        .orderBy('id')
        .execute();
      const rows: Record<string, number> = {};
      const run = async (table: string, deleting: Promise<DeleteResult>) => {
        rows[table] = count(await deleting);
      };
      await run(
        'webhook_deliveries',
        trx
          .deleteFrom('webhook_deliveries')
          .where((eb) => eb.or([eb('job_id', 'in', jobIds()), eb('key_id', 'in', keys())]))
          .executeTakeFirst(),
      );
      await run('webhook_secrets', trx.deleteFrom('webhook_secrets').where('key_id', 'in', keys()).executeTakeFirst());
      await run('key_dictionaries', trx.deleteFrom('key_dictionaries').where('key_id', 'in', keys()).executeTakeFirst());
      await run('key_billing', trx.deleteFrom('key_billing').where('key_id', 'in', keys()).executeTakeFirst());
      await run('realtime_client_secrets', trx.deleteFrom('realtime_client_secrets').where('key_id', 'in', keys()).executeTakeFirst());
      await run('usage_key_costs', trx.deleteFrom('usage_key_costs').where('key_id', 'in', keys()).executeTakeFirst());
      const ofTenantOrKeys = <T extends 'usage_events' | 'usage_reservations'>(table: T) =>
        trx
          .deleteFrom(table as 'usage_events')
          .where((eb) => eb.or([eb('tenant', '=', tenant), eb('key_id', 'in', keys())]))
          .executeTakeFirst();
      await run('usage_events', ofTenantOrKeys('usage_events'));
      await run('usage_reservations', ofTenantOrKeys('usage_reservations'));
      await run('usage_pool_totals', trx.deleteFrom('usage_pool_totals').where('tenant', '=', tenant).executeTakeFirst());
      await run('idempotency_records', trx.deleteFrom('idempotency_records').where('tenant', '=', tenant).executeTakeFirst());
      await run('voice_profiles', trx.deleteFrom('voice_profiles').where('tenant', '=', tenant).executeTakeFirst());
      await run('realtime_seats', trx.deleteFrom('realtime_seats').where('tenant', '=', tenant).executeTakeFirst());
      for (const table of ['console_sessions', 'console_totp', 'console_recovery_codes', 'console_pending_sign_ins'] as const) {
        await run(
          table,
          trx
            .deleteFrom(table as 'console_sessions')
            .where('user_id', 'in', users())
            .executeTakeFirst(),
        );
      }
      await run('console_users', trx.deleteFrom('console_users').where('tenant', '=', tenant).executeTakeFirst());
      await run('console_invites', trx.deleteFrom('console_invites').where('tenant', '=', tenant).executeTakeFirst());
      await run('console_tenant_settings', trx.deleteFrom('console_tenant_settings').where('tenant', '=', tenant).executeTakeFirst());
      await run('jobs', trx.deleteFrom('jobs').where('tenant', '=', tenant).executeTakeFirst());
      await run('api_keys', trx.deleteFrom('api_keys').where('tenant', '=', tenant).executeTakeFirst());
      const jobs = jobRows.map((row) => ({
        id: row.id,
        refs: [row.audio_path, row.partial_path, row.result_path, row.redacted_audio_path, row.unredacted_path].filter((ref): ref is string => ref !== null),
      }));
      return { rows, keyIds, jobs };
    });
  }
}
