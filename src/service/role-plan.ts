// What each role runs (src/service/start-service.ts says why the roles are split as they are).
import type { ServiceRole } from '../config/service-config.js';

export interface RolePlan {
  /** Serves the HTTP API (jobs, uploads, transcriptions). Every role serves health and metrics. */
  serves: boolean;
  /** Claims and runs jobs, delivers webhooks, sweeps expired results and orphaned blobs. */
  works: boolean;
}

/** A role that cannot run on the configured stores; the message says what to change. */
export class RoleRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleRefusedError';
  }
}

export function rolePlan(role: ServiceRole, database: 'sqlite' | 'postgres'): RolePlan {
  // SQLite is one server's database: at start a process takes over the work of every other
  // instance on it, so an API and a worker process on one SQLite file would steal each other's.
  if (role !== 'all' && database === 'sqlite') {
    throw new RoleRefusedError(`the ${role} role needs a database shared by several processes: set SVC_DATABASE_URL to a postgres:// URL, or run --role all`);
  }
  return { serves: role !== 'worker', works: role !== 'api' };
}
