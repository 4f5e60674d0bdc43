// A job's engine calls, for the scheduler: batch work (nobody waits on the line), its tenant's, one
// request per job, so two jobs of a tenant take turns and a tenant's jobs take turns with another's.
import type { EngineWork } from '../domain/work-classes.js';
import type { JobRecord } from '../store/job-store.js';

export function jobWork(job: Pick<JobRecord, 'id' | 'tenant'>): EngineWork {
  return { workClass: 'batch', tenant: job.tenant, request: job.id };
}
