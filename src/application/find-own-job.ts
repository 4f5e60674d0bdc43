// Every job route is owner-scoped (the contract: "another key cannot poll or complete them"): a job
// belongs to the API key that created it, and a request of any other key — another tenant's or
// another of the same tenant's — is answered exactly like one for an unknown id (the same 404
// not_found, message included), and so is a job whose tombstone has ended. Nothing about another
// key's job is acted on before it is refused (its upload deadline is not applied). A job read here
// has its time-driven transitions applied first (an upload slot past its deadline fails the job), so
// no answer shows a state already over.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { JobHousekeeping } from '../jobs/job-housekeeping.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import { JobNotFound } from './application-errors.js';
import { isPastTombstone } from './job-deadlines.js';

export interface OwnJobDeps {
  jobs: Pick<JobStore, 'get'>;
  housekeeping: Pick<JobHousekeeping, 'expireUpload'>;
  clock: () => Date;
}

/** The key a request acts for. */
export type JobOwner = Pick<ApiKeyRecord, 'id' | 'tenant'>;

/** The job `owner` created, or JobNotFound. */
export async function findOwnJob(deps: OwnJobDeps, owner: JobOwner, jobId: string): Promise<JobRecord> {
  const now = deps.clock().getTime();
  let job = await deps.jobs.get(jobId, owner.tenant);
  if (!job || job.keyId !== owner.id || isPastTombstone(job, now)) throw new JobNotFound();
  if (await deps.housekeeping.expireUpload(job, now)) job = (await deps.jobs.get(job.id, job.tenant)) ?? job;
  return job;
}
