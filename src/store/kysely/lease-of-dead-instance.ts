// The lease condition shared by the tables whose rows are leased to a worker of an instance
// ('<instance id>/<slot>', instance-registry.ts leaseOwnerOf): held by no registered instance.
// Written as SQL because it reads the same on SQLite and PostgreSQL and matches on a prefix, which
// Kysely's builders would only spell longer.
import { type RawBuilder, sql, type SqlBool } from 'kysely';

export function leaseOfDeadInstance(table: 'jobs' | 'webhook_deliveries'): RawBuilder<SqlBool> {
  const owner = sql.ref(`${table}.lease_owner`);
  return sql<SqlBool>`NOT EXISTS (SELECT 1 FROM service_instances i WHERE substr(${owner}, 1, length(i.id) + 1) = i.id || '/')`;
}
