// Transcript content is about to be served to a key: a job audit line says which key read which job's
// result, and by which route.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { JOB_AUDIT_EVENTS, type JobAuditLog, logJobAudit, requestKeySubject } from '../jobs/job-audit.js';

export function logResultRead(
  log: JobAuditLog,
  key: ApiKeyRecord,
  jobId: string,
  via: 'result' | 'poll' | 'partial' | 'redacted_audio' | 'unredacted_result',
): void {
  logJobAudit(log, JOB_AUDIT_EVENTS.resultRead, requestKeySubject(jobId, key), { via });
}
