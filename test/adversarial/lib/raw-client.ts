// Small conveniences over raw-http.ts for the adversarial tests: a multipart request to a route of
// an AdversarialServer, a fresh job with its presigned form, and reading an envelope's code.
import type { AdversarialServer } from './adversarial-server.js';
import { multipartBody, type Part } from './multipart.js';
import { type Header, type RawOutcome, type RawRequest, sendRaw } from './raw-http.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export function bearer(key: string): Header {
  return ['Authorization', `Bearer ${key}`];
}

export function multipartRequest(
  server: AdversarialServer,
  target: string,
  parts: Part[],
  options: { boundary?: string; headers?: Header[] } = {},
): RawRequest {
  const boundary = options.boundary ?? '----svc-adversarial-boundary';
  return {
    method: 'POST',
    target,
    headers: [['Host', server.host], ['Connection', 'close'], ['Content-Type', `multipart/form-data; boundary=${boundary}`], ...(options.headers ?? [])],
    body: multipartBody(parts, { boundary, lineEnd: '\r\n', ending: 'proper' }),
    framing: 'length',
  };
}

export function send(server: AdversarialServer, request: RawRequest, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RawOutcome> {
  return sendRaw(server.url, request, { timeoutMs });
}

/** `status code` of an answer ("413 upload_too_large", "400 EntityTooLarge", "closed", ...). */
export function statusAndCode(outcome: RawOutcome): string {
  if (outcome.kind !== 'response') return outcome.kind;
  const text = outcome.response.body.toString('utf8');
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  }
  return code ? `${outcome.response.status} ${code}` : String(outcome.response.status);
}

export async function createJob(server: AdversarialServer, body: Record<string, unknown>): Promise<{ id: string; fields: Record<string, string> }> {
  const res = await fetch(`${server.url}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.keys.valid}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create job: ${res.status} ${await res.text()}`);
  const job = (await res.json()) as { id: string; upload: { fields: Record<string, string> } };
  return { id: job.id, fields: job.upload.fields };
}

export function formParts(fields: Record<string, string>): Part[] {
  return Object.entries(fields).map(([name, value]) => ({ name, data: Buffer.from(value, 'utf8') }));
}
