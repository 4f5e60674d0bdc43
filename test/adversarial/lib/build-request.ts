// Turns a CaseSpec into the bytes to send, with the run's real keys, the case's fresh job and its
// signed form, and the fixture files filled in.
import { createHash } from 'node:crypto';

import { FORM_FIELDS } from '../../../src/jobs/upload-policy.js';
import { type AuthChoice, AUTHENTICATING, type CaseSpec, type FormFieldsPart, type PartSpec } from './case-spec.js';
import { WEBHOOK_PLACEHOLDER } from './cases/transcription-cases.js';
import type { FuzzFiles } from './fuzz-fixtures.js';
import { materialize } from './hostile-values.js';
import { multipartBody, type Part } from './multipart.js';
import type { Header, RawRequest } from './raw-http.js';

export interface FuzzKeys {
  valid: string;
  otherTenant: string;
  revoked: string;
  paused: string;
  noDetection: string;
}

export interface BuildContext {
  keys: FuzzKeys;
  /** An HTTPS destination the server admits (loopback, allowed for the run) where nothing listens. */
  webhookUrl: string;
  files: FuzzFiles;
  /** The case's fresh job, when it asked for one. */
  job: { id: string; fields: Record<string, string> } | null;
  /** The server's host:port, for the Host header. */
  host: string;
}

const MALFORMED_AUTHORIZATION = [
  'Bearer',
  'Bearer ',
  'Basic dXNlcjpwYXNzd29yZA==',
  'Token svc_abc',
  'Bearer svc_short_key',
  'Bearer \u0000',
  'Bearer svc_AAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA extra',
  'bearer',
  'Bearer\tsvc_AAAAAAAAAAAA_',
  'Digest username="x"',
];

/** Stable per case, so a malformed credential is the same on every rerun of the seed. */
function pick<T>(items: readonly T[], spec: CaseSpec): T {
  const digest = createHash('sha256').update(`${spec.route}|${spec.mutation}|${spec.target}`).digest();
  return items[digest.readUInt32BE(0) % items.length];
}

function authorization(choice: AuthChoice, spec: CaseSpec, keys: FuzzKeys): Header[] {
  const bearer = (key: string): Header => ['Authorization', `Bearer ${key}`];
  switch (choice) {
    case 'valid':
      return [bearer(keys.valid)];
    case 'other-tenant':
      return [bearer(keys.otherTenant)];
    case 'none':
      return [];
    case 'unknown-key':
      return [bearer(`svc_AAAAAAAAAAAA_${'A'.repeat(43)}`)];
    case 'revoked':
      return [bearer(keys.revoked)];
    case 'paused':
      return [bearer(keys.paused)];
    case 'no-detection':
      return [bearer(keys.noDetection)];
    case 'malformed':
      return [['Authorization', pick(MALFORMED_AUTHORIZATION, spec)]];
    case 'huge':
      return [bearer('A'.repeat(12_000))];
    case 'duplicate-valid-first':
      return [bearer(keys.valid), bearer('svc_wrong')];
    case 'duplicate-valid-second':
      return [bearer('svc_wrong'), bearer(keys.valid)];
  }
}

/**
 * Failed authentications are throttled per client address (30 a minute), and a throttled address
 * is refused before its key is even read: credentials that do not authenticate come from a pool of
 * loopback addresses so that they never starve the valid key's cases.
 */
export function localAddressFor(spec: CaseSpec, index: number): string {
  if (AUTHENTICATING.has(spec.auth)) return '127.0.0.1';
  return `127.0.${1 + (Math.floor(index / 254) % 200)}.${1 + (index % 254)}`;
}

function formFieldParts(form: FormFieldsPart, issued: Record<string, string>): Part[] {
  const entries: Array<[string, string]> = FORM_FIELDS.map((name) => [name, issued[name] ?? '']);
  const m = form.mutation;
  if (m.kind === 'drop') entries.splice(m.field, 1);
  if (m.kind === 'change') entries[m.field] = [entries[m.field][0], materialize(m.value)];
  if (m.kind === 'duplicate') entries.push(entries[m.field]);
  if (m.kind === 'extra') entries.push([materialize(m.name), materialize(m.value)]);
  if (m.kind === 'flip-signature') {
    const i = FORM_FIELDS.indexOf('x-svc-signature');
    const signature = entries[i][1];
    entries[i] = [entries[i][0], signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0')];
  }
  return entries.map(([name, value]) => ({ name, data: Buffer.from(value, 'utf8') }));
}

function parts(specs: PartSpec[], ctx: BuildContext): Part[] {
  return specs.flatMap((part): Part[] => {
    if (part.kind === 'form-fields') return formFieldParts(part, ctx.job?.fields ?? {});
    if (part.kind === 'field') {
      const value = materialize(part.value).replaceAll(WEBHOOK_PLACEHOLDER, ctx.webhookUrl);
      return [{ name: materialize(part.name), contentType: part.contentType, data: Buffer.from(value, 'utf8') }];
    }
    return [
      {
        name: materialize(part.name),
        filename: part.filename === null ? undefined : materialize(part.filename),
        contentType: part.contentType,
        data: ctx.files[part.file],
      },
    ];
  });
}

export function buildRequest(spec: CaseSpec, ctx: BuildContext): RawRequest {
  const jobId = ctx.job?.id ?? 'job_missing';
  if (spec.verbatim !== undefined) {
    const text = spec.verbatim.replaceAll('{key}', ctx.keys.valid);
    return {
      method: spec.method,
      target: spec.target,
      headers: [],
      body: Buffer.alloc(0),
      framing: 'verbatim',
      verbatim: Buffer.from(text, 'latin1'),
      halfClose: spec.framing === 'overstated',
    };
  }
  const headers: Header[] = [['Host', ctx.host], ['Connection', 'close'], ...authorization(spec.auth, spec, ctx.keys), ...spec.headers];
  let body: Buffer = Buffer.alloc(0);
  const b = spec.body;
  if (b.kind === 'json') {
    if (b.contentType !== null) headers.push(['Content-Type', b.contentType]);
    body = Buffer.from(materialize(b.text).replaceAll(WEBHOOK_PLACEHOLDER, ctx.webhookUrl), 'utf8');
  } else if (b.kind === 'bytes') {
    if (b.contentType !== null) headers.push(['Content-Type', b.contentType]);
    body = ctx.files[b.file];
  } else if (b.kind === 'multipart') {
    headers.push(['Content-Type', b.contentType.replaceAll('{b}', b.boundary)]);
    body = multipartBody(parts(b.parts, ctx), { boundary: b.boundary, lineEnd: b.lineEnd, ending: b.ending, preamble: b.preamble, epilogue: b.epilogue });
  }
  return { method: spec.method, target: spec.target.replaceAll('{job}', encodeURIComponent(jobId)), headers, body, framing: spec.framing };
}
