// Service instances (see instance-registry.ts): one implementation for SQLite and PostgreSQL, on
// Kysely (store-db.ts). On PostgreSQL any number of API and worker processes register here and each
// reaps the instances whose heartbeat expired (the statements are idempotent, so whichever live
// process looks first releases a dead one's work); the embedded SQLite server is alone on its
// database and reaps every other instance at start (`allBut`). Every method is one statement.
import { instanceRecordOf } from '../instance-record.js';
import type { InstanceRecord, InstanceRegistry, InstanceRole } from '../instance-registry.js';
import type { StoreDb } from './store-schema.js';

export class KyselyInstanceRegistry implements InstanceRegistry {
  constructor(private readonly db: StoreDb) {}

  async register(id: string, role: InstanceRole, nowMs: number, ttlMs: number): Promise<void> {
    await this.db
      .insertInto('service_instances')
      .values({ id, role, started_at_ms: nowMs, heartbeat_at_ms: nowMs, expires_at_ms: nowMs + ttlMs })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet((eb) => ({ heartbeat_at_ms: eb.ref('excluded.heartbeat_at_ms'), expires_at_ms: eb.ref('excluded.expires_at_ms') })),
      )
      .execute();
  }

  async heartbeat(id: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('service_instances')
      .set({ heartbeat_at_ms: nowMs, expires_at_ms: nowMs + ttlMs })
      .where('id', '=', id)
      .executeTakeFirst();
    return numUpdatedRows === 1n;
  }

  async deregister(id: string): Promise<void> {
    await this.db.deleteFrom('service_instances').where('id', '=', id).execute();
  }

  async reapDead(nowMs: number, options: { allBut?: string } = {}): Promise<string[]> {
    const rows = await this.db
      .deleteFrom('service_instances')
      .$if(options.allBut === undefined, (query) => query.where('expires_at_ms', '<=', nowMs))
      .$if(options.allBut !== undefined, (query) => query.where('id', '<>', options.allBut!))
      .returning('id')
      .execute();
    return rows.map((row) => row.id).sort();
  }

  async live(nowMs: number): Promise<InstanceRecord[]> {
    const rows = await this.db.selectFrom('service_instances').selectAll().where('expires_at_ms', '>', nowMs).orderBy('started_at_ms').orderBy('id').execute();
    return rows.map(instanceRecordOf);
  }
}
