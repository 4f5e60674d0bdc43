// The job columns that hold content (issue 48): the request (vocabulary and prompts are clinical
// text) and the carry-over between chunks (`progress`: the text so far). Sealed under the job's
// tenant's data key, each bound to its column and job id, so neither can be moved onto another job
// or column; a row written before sealing existed opens as it is.
import type { ContentSealer } from '../content-sealer.js';
import type { JobRow } from '../job-record.js';

export const requestAad = (jobId: string) => `jobs.request:${jobId}`;
export const progressAad = (jobId: string) => `jobs.progress:${jobId}`;

export function sealProgress(sealer: ContentSealer, tenant: string, jobId: string, progress: Record<string, unknown>): Promise<string> {
  return sealer.sealText(tenant, progressAad(jobId), JSON.stringify(progress));
}

/** `row` with its content columns opened (JSON text again, as job-record.ts reads them). */
export async function openedJobRow<R extends Pick<JobRow, 'id' | 'tenant' | 'request' | 'progress'>>(sealer: ContentSealer, row: R): Promise<R> {
  return {
    ...row,
    request: await sealer.openText(row.tenant, requestAad(row.id), row.request),
    progress: await sealer.openNullable(row.tenant, progressAad(row.id), row.progress),
  };
}
