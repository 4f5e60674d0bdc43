// Every job route is owner-scoped: another tenant's job is answered exactly like an unknown one, and
// so is a job whose tombstone has ended. A job read here has its time-driven transitions applied
// first (an upload slot past its deadline fails the job), so no answer shows a state already over.
import type { JobHousekeeping } from '../jobs/job-housekeeping.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import { JobNotFound } from './application-errors.js';
import { isPastTombstone } from './job-deadlines.js';

export interface OwnJobDeps {
  jobs: Pick<JobStore, 'get'>;
  housekeeping: Pick<JobHousekeeping, 'expireUpload'>;
  clock: () => Date;
}

export async function findOwnJob(deps: OwnJobDeps, tenant: string, jobId: string): Promise<JobRecord> {
  const now = deps.clock().getTime();
  let job = await deps.jobs.get(jobId, tenant);
  if (!job || isPastTombstone(job, now)) throw new JobNotFound();
  if (await deps.housekeeping.expireUpload(job, now)) job = (await deps.jobs.get(job.id, job.tenant)) ?? job;
  return job;
}
