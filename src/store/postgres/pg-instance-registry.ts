// Service instances in PostgreSQL (see instance-registry.ts): any number of API and worker
// processes register here; each reaps the instances whose heartbeat expired, so a dead process's
// work is released by whichever live process looks first (the statements are idempotent).
import type { InstanceRecord, InstanceRegistry, InstanceRole } from '../instance-registry.js';
import { instanceRecordOf, type InstanceRow } from '../instance-record.js';
import type { PostgresDatabase } from './database.js';

export class PgInstanceRegistry implements InstanceRegistry {
  constructor(private readonly db: PostgresDatabase) {}

  async register(id: string, role: InstanceRole, nowMs: number, ttlMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO service_instances (id, role, started_at_ms, heartbeat_at_ms, expires_at_ms) VALUES ($1, $2, $3, $3, $4)
        ON CONFLICT (id) DO UPDATE SET heartbeat_at_ms = excluded.heartbeat_at_ms, expires_at_ms = excluded.expires_at_ms`,
      [id, role, nowMs, nowMs + ttlMs],
    );
  }

  async heartbeat(id: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query('UPDATE service_instances SET heartbeat_at_ms = $1, expires_at_ms = $2 WHERE id = $3', [nowMs, nowMs + ttlMs, id]);
    return rowCount === 1;
  }

  async deregister(id: string): Promise<void> {
    await this.db.query('DELETE FROM service_instances WHERE id = $1', [id]);
  }

  async reapDead(nowMs: number, options: { allBut?: string } = {}): Promise<string[]> {
    const { rows } =
      options.allBut === undefined
        ? await this.db.query<{ id: string }>('DELETE FROM service_instances WHERE expires_at_ms <= $1 RETURNING id', [nowMs])
        : await this.db.query<{ id: string }>('DELETE FROM service_instances WHERE id <> $1 RETURNING id', [options.allBut]);
    return rows.map((row) => row.id).sort();
  }

  async live(nowMs: number): Promise<InstanceRecord[]> {
    const { rows } = await this.db.query<InstanceRow>('SELECT * FROM service_instances WHERE expires_at_ms > $1 ORDER BY started_at_ms, id', [nowMs]);
    return rows.map(instanceRecordOf);
  }
}
