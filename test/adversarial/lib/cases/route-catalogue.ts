// Every route of the contract and the generator that fuzzes it. The served OpenAPI document is the
// list of routes: one it names that the catalogue has no generator for still gets a generic one, and
// the test reports it, so a route added later is fuzzed from the day it is documented.
import fc from 'fast-check';

import type { CaseSpec } from '../case-spec.js';
import { jobCreationCase, jobIdCase } from './job-cases.js';
import { openApiCase, protocolCase, uncataloguedRouteCase } from './protocol-cases.js';
import { transcriptionCase } from './transcription-cases.js';
import { uploadCase } from './upload-cases.js';

/** OpenAPI paths and methods each generator covers. */
export const CATALOGUE: Readonly<Record<string, readonly string[]>> = {
  '/v1/audio/transcriptions': ['post'],
  '/v1/jobs': ['post'],
  '/v1/jobs/{job_id}': ['get', 'delete'],
  '/v1/jobs/{job_id}/complete': ['post'],
  '/v1/jobs/{job_id}/result': ['get'],
  '/v1/jobs/{job_id}/partial': ['get'],
  '/v1/jobs/{job_id}/redacted_audio': ['get'],
  '/v1/jobs/{job_id}/unredacted_result': ['get'],
  '/v1/uploads/{job_id}': ['post'],
  '/v1/openapi.json': ['get'],
};

/** `METHOD path` of the document's operations that CATALOGUE does not cover. */
export function uncatalogued(paths: Record<string, Record<string, unknown>>): string[] {
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const method of Object.keys(operations)) {
      if (!/^(get|put|post|delete|options|head|patch|trace)$/.test(method)) continue;
      if (!CATALOGUE[path]?.includes(method)) missing.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return missing;
}

/**
 * All cases of a run. Weights favour the routes with the most parsing (multipart, JSON); every
 * route and the protocol layer get a share.
 */
export function fuzzCase(uncataloguedPaths: string[] = []): fc.Arbitrary<CaseSpec> {
  const extra = [...new Set(uncataloguedPaths.map((route) => route.split(' ')[1]))].map((path) => ({
    weight: 2,
    arbitrary: uncataloguedRouteCase(path),
  }));
  return fc.oneof(
    { weight: 30, arbitrary: transcriptionCase },
    { weight: 18, arbitrary: jobCreationCase },
    { weight: 16, arbitrary: jobIdCase },
    { weight: 16, arbitrary: uploadCase },
    { weight: 4, arbitrary: openApiCase },
    { weight: 10, arbitrary: protocolCase },
    ...extra,
  );
}
