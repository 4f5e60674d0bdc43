// Transcription jobs in SQLite: the durable row behind every 202.
import type { Database, Statement } from 'better-sqlite3';
import type { JobRecord, JobStatus, JobStore, NewJob } from '../job-store.js';
import { randomBase62 } from '../random-id.js';

interface JobRow {
  id: string;
  tenant: string;
  key_id: string;
  status: string;
  model: string;
  request: string;
  audio_path: string | null;
  audio_seconds: number | null;
  webhook_url: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

const JOB_COLUMNS = `id, tenant, key_id, status, model, request, audio_path, audio_seconds, webhook_url,
  error_code, error_message, created_at, updated_at`;

export class SqliteJobStore implements JobStore {
  private readonly insert: Statement<[JobRow]>;
  private readonly selectOwned: Statement<[string, string], JobRow>;
  private readonly selectByAudio: Statement<[string], { one: number }>;

  constructor(db: Database) {
    this.insert = db.prepare(`INSERT INTO jobs (${JOB_COLUMNS}) VALUES (@id, @tenant, @key_id, @status, @model, @request,
      @audio_path, @audio_seconds, @webhook_url, @error_code, @error_message, @created_at, @updated_at)`);
    this.selectOwned = db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ? AND tenant = ?`);
    this.selectByAudio = db.prepare('SELECT 1 AS one FROM jobs WHERE audio_path = ? LIMIT 1');
  }

  create(job: NewJob, now = new Date()): JobRecord {
    const at = now.toISOString();
    const row: JobRow = {
      // 22 base62 characters: about 131 random bits, so ids cannot be guessed or enumerated.
      id: `job_${randomBase62(22)}`,
      tenant: job.tenant,
      key_id: job.keyId,
      status: job.status,
      model: 'svc-medical-1',
      request: JSON.stringify(job.request),
      audio_path: job.audioPath,
      audio_seconds: job.audioSeconds,
      webhook_url: job.webhookUrl,
      error_code: null,
      error_message: null,
      created_at: at,
      updated_at: at,
    };
    // Autocommit with synchronous=FULL: the row is on disk when run() returns.
    this.insert.run(row);
    return toRecord(row);
  }

  get(id: string, tenant: string): JobRecord | null {
    const row = this.selectOwned.get(id, tenant);
    return row ? toRecord(row) : null;
  }

  /** Whether any job still points at this audio file (the blob sweeper keeps those). */
  referencesAudio(path: string): boolean {
    return this.selectByAudio.get(path) !== undefined;
  }
}

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    keyId: row.key_id,
    status: row.status as JobStatus,
    model: row.model as JobRecord['model'],
    request: JSON.parse(row.request) as Record<string, unknown>,
    audioPath: row.audio_path,
    audioSeconds: row.audio_seconds,
    webhookUrl: row.webhook_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    errorCode: row.error_code,
    errorMessage: row.error_message,
  };
}
