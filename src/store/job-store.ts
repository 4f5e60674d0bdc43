// Transcription jobs. This is the part the HTTP route needs (create a durable job record and find it);
// the lifecycle (claiming, leases, results, retention) grows here with the jobs issue.

export const JOB_STATUSES = ['awaiting_upload', 'accepted', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobRecord {
  id: string;
  tenant: string;
  keyId: string;
  status: JobStatus;
  model: 'svc-medical-1';
  /** The validated request (format, language, vocabulary, ...), as JSON-safe data. */
  request: Record<string, unknown>;
  /** Durable audio location in the blob store (null once deleted). */
  audioPath: string | null;
  audioSeconds: number | null;
  webhookUrl: string | null;
  createdAt: string;
  updatedAt: string;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface NewJob {
  tenant: string;
  keyId: string;
  status: 'accepted' | 'awaiting_upload';
  request: Record<string, unknown>;
  audioPath: string | null;
  audioSeconds: number | null;
  webhookUrl: string | null;
}

export interface JobStore {
  /** Durably inserts the job (committed before it returns). */
  create(job: NewJob, now?: Date): JobRecord;
  /** Owner-scoped lookup: another tenant's job is null. */
  get(id: string, tenant: string): JobRecord | null;
}
