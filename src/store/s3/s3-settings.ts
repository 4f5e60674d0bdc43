// What S3BlobStore needs to know about its bucket (the service builds it from SVC_S3_* settings).
// Checked as a whole, so the configuration layer can report every problem at once.

export interface S3BlobStoreSettings {
  bucket: string;
  region: string;
  /** The S3 API address the service uses (MinIO, Ceph, a VPC endpoint...); absent: AWS's own. */
  endpoint?: string;
  /**
   * The address browsers post upload forms to, when it differs from `endpoint` (e.g. `endpoint`
   * is a name only the service's network resolves). A form is signed for its host, so forms are
   * signed with this address; workers' presigned GET URLs stay on `endpoint` (they are inside).
   */
  publicEndpoint?: string;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (MinIO and most self-hosted). */
  forcePathStyle: boolean;
  /** Absent: the SDK's default chain (environment, shared files, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Key prefix inside the bucket, e.g. 'svc-stt/' (empty: the bucket's root). */
  prefix?: string;
  /**
   * The server-side encryption a presigned upload form requires of the bucket (`AES256`: SSE-S3), so a
   * client's file is encrypted by the bucket from the moment it lands until it is collected and sealed;
   * null or absent: none required (a server without it).
   */
  uploadEncryption?: 'AES256' | null;
  /**
   * Local folder for request bodies of the direct-upload route (POST /v1/audio/transcriptions
   * streams into a local file, because the inline route transcribes it in-process).
   */
  spoolDir: string;
}

/** The bucket settings as an operator gives them; the process adds its local spool folder. */
export type S3BucketSettings = Omit<S3BlobStoreSettings, 'spoolDir'>;

// S3's rules for bucket names (3-63 lowercase letters, digits, dots, hyphens; a letter or digit at
// both ends); AWS adds more (no IP-like names), which the bucket itself enforces at creation.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// Plain path segments, each ending in `/`: keys stay readable and no `..` or empty segment appears.
const PREFIX = /^(?:[A-Za-z0-9_.-]+\/)*$/;

export function s3SettingsProblems(settings: S3BlobStoreSettings): string[] {
  const problems: string[] = [];
  if (!BUCKET.test(settings.bucket)) problems.push('the S3 bucket name is 3 to 63 lowercase letters, digits, dots or hyphens');
  if (!settings.region) problems.push('the S3 region is required (any value, e.g. us-east-1, for most S3-compatible servers)');
  for (const [name, value] of [
    ['endpoint', settings.endpoint],
    ['public endpoint', settings.publicEndpoint],
  ] as const) {
    if (value !== undefined && !isHttpUrl(value)) problems.push(`the S3 ${name} is an http(s) URL`);
  }
  const prefix = settings.prefix ?? '';
  if (!PREFIX.test(prefix) || prefix.split('/').some((segment) => segment === '.' || segment === '..')) {
    problems.push("the S3 key prefix is empty or path segments of letters, digits, '_', '.', '-', each ending in '/' (e.g. 'svc-stt/')");
  }
  if (settings.credentials && !(settings.credentials.accessKeyId && settings.credentials.secretAccessKey)) {
    problems.push('S3 credentials need both an access key id and a secret access key');
  }
  if (!settings.spoolDir) problems.push('the S3 store needs a local spool folder for request bodies');
  return problems;
}

export class S3SettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid S3 blob store settings: ${problems.join('; ')}`);
    this.name = 'S3SettingsError';
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
