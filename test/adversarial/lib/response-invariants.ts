// What every answer of the service must satisfy, whatever was sent (the contract's Errors section and
// docs/DESIGN.md decision 4): no 5xx but the documented 503s, every error exactly the envelope
// {"error":{"code","message"}} — or S3's XML <Error> document on the presigned upload route — and no
// message quoting the request.
import { ECHO_CANARY } from './hostile-values.js';
import { headerOf, type RawOutcome, type RawResponse } from './raw-http.js';

export type InvariantName = 'server_error' | 'non_envelope' | 'echo' | 'no_response';

export interface Violation {
  invariant: InvariantName;
  detail: string;
}

/** The 503 codes the contract documents (capacity, backend, storage, decoder, shutdown). */
const DOCUMENTED_503_CODES = new Set(['capacity_unavailable', 'service_unavailable']);
/** S3's code for the same condition on the upload target. */
const DOCUMENTED_S3_503_CODES = new Set(['ServiceUnavailable', 'SlowDown']);

const S3_ERROR = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>([A-Za-z]+)<\/Code><Message>[^<]+<\/Message><RequestId>[^<]*<\/RequestId><\/Error>$/;

/** Why `response` is not exactly the JSON envelope, or null when it is. */
export function envelopeProblem(response: RawResponse): string | null {
  const type = headerOf(response, 'content-type') ?? '';
  if (!/^application\/json/i.test(type)) return `content-type ${JSON.stringify(type)}, body ${preview(response.body)}`;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `body is not JSON: ${preview(response.body)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error') return `top-level keys ${JSON.stringify(keys)}`;
  const error = (body as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return 'error is not an object';
  const errorKeys = Object.keys(error).sort();
  if (errorKeys.join(',') !== 'code,message') return `error keys ${JSON.stringify(errorKeys)}`;
  const { code, message } = error as { code: unknown; message: unknown };
  if (typeof code !== 'string' || code === '' || typeof message !== 'string' || message === '') return 'code and message must be non-empty strings';
  return null;
}

/** Why `response` is not S3's error document, or null when it is. */
export function s3ErrorProblem(response: RawResponse): string | null {
  const type = headerOf(response, 'content-type') ?? '';
  if (!/^application\/xml/i.test(type)) return `content-type ${JSON.stringify(type)}`;
  return S3_ERROR.test(response.body.toString('utf8')) ? null : `not an S3 error document: ${preview(response.body)}`;
}

function errorCode(response: RawResponse): string | null {
  try {
    return (JSON.parse(response.body.toString('utf8')) as { error?: { code?: unknown } }).error?.code as string;
  } catch {
    return S3_ERROR.exec(response.body.toString('utf8'))?.[1] ?? null;
  }
}

export interface CheckOptions {
  /** POST to the presigned upload target: S3 XML errors are the contract there. */
  s3Route: boolean;
  /** A HEAD request: the answer has the headers of the envelope but no body. */
  head: boolean;
  /** The request could not be answered (half-closed, not HTTP): a closed connection is acceptable. */
  mayDrop: boolean;
}

export function checkOutcome(outcome: RawOutcome, options: CheckOptions): Violation[] {
  if (outcome.kind !== 'response') {
    if (options.mayDrop && outcome.kind === 'closed') return [];
    return [{ invariant: 'no_response', detail: `${outcome.kind} after ${outcome.elapsedMs} ms: ${JSON.stringify(outcome.partial)}` }];
  }
  const { response } = outcome;
  const violations: Violation[] = [];
  if (response.status >= 500) {
    const code = errorCode(response);
    const documented = response.status === 503 && code !== null && (DOCUMENTED_503_CODES.has(code) || (options.s3Route && DOCUMENTED_S3_503_CODES.has(code)));
    if (!documented) violations.push({ invariant: 'server_error', detail: `${response.status} ${preview(response.body)}` });
  }
  if (response.status >= 400 && options.head) {
    const type = headerOf(response, 'content-type') ?? '';
    if (!/^application\/json/i.test(type))
      violations.push({ invariant: 'non_envelope', detail: `HEAD ${response.status}: content-type ${JSON.stringify(type)}` });
  } else if (response.status >= 400) {
    const json = envelopeProblem(response);
    const xml = options.s3Route ? s3ErrorProblem(response) : 'not the upload route';
    if (json !== null && xml !== null) violations.push({ invariant: 'non_envelope', detail: `${response.status}: ${json}` });
    if (response.body.includes(ECHO_CANARY)) violations.push({ invariant: 'echo', detail: `${response.status}: ${preview(response.body)}` });
  }
  return violations;
}

function preview(body: Buffer): string {
  return JSON.stringify(body.subarray(0, 160).toString('utf8'));
}
