// Service instances in SQLite (see instance-registry.ts). The embedded server is alone on its
// database, so at start it reaps every other instance (`allBut`); heartbeats still run, so the
// admin CLI and operators see the same table PostgreSQL deployments have.
import type { Database } from 'better-sqlite3';
import type { InstanceRecord, InstanceRegistry, InstanceRole } from '../instance-registry.js';
import { instanceRecordOf, type InstanceRow } from '../instance-record.js';

export class SqliteInstanceRegistry implements InstanceRegistry {
  constructor(private readonly db: Database) {}

  async register(id: string, role: InstanceRole, nowMs: number, ttlMs: number): Promise<void> {
    this.db
      .prepare(`INSERT INTO service_instances (id, role, started_at_ms, heartbeat_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET heartbeat_at_ms = excluded.heartbeat_at_ms, expires_at_ms = excluded.expires_at_ms`)
      .run(id, role, nowMs, nowMs, nowMs + ttlMs);
  }

  async heartbeat(id: string, nowMs: number, ttlMs: number): Promise<boolean> {
    return this.db.prepare('UPDATE service_instances SET heartbeat_at_ms = ?, expires_at_ms = ? WHERE id = ?').run(nowMs, nowMs + ttlMs, id).changes === 1;
  }

  async deregister(id: string): Promise<void> {
    this.db.prepare('DELETE FROM service_instances WHERE id = ?').run(id);
  }

  async reapDead(nowMs: number, options: { allBut?: string } = {}): Promise<string[]> {
    const rows =
      options.allBut === undefined
        ? this.db.prepare<[number], { id: string }>('DELETE FROM service_instances WHERE expires_at_ms <= ? RETURNING id').all(nowMs)
        : this.db.prepare<[string], { id: string }>('DELETE FROM service_instances WHERE id <> ? RETURNING id').all(options.allBut);
    return rows.map((row) => row.id).sort();
  }

  async live(nowMs: number): Promise<InstanceRecord[]> {
    return this.db
      .prepare<[number], InstanceRow>('SELECT * FROM service_instances WHERE expires_at_ms > ? ORDER BY started_at_ms, id')
      .all(nowMs)
      .map(instanceRecordOf);
  }
}
