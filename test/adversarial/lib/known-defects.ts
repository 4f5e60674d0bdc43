// Server defects the suite has found and that are reported but not fixed yet. A fuzz violation that
// one of these explains is counted under the defect's id instead of failing the run, so the suite
// stays green while the fix is pending and turns red on anything new. Each predicate matches the
// exact trigger and the exact wrong answer: the same request failing differently still fails.
// When a fix lands, its entry goes (and the dedicated test in protocol-edges.test.ts, which
// accepts the fixed behaviour already, then guards it).
import type { CaseSpec } from './case-spec.js';
import type { RawOutcome, RawRequest } from './raw-http.js';
import type { Violation } from './response-invariants.js';

interface KnownDefect {
  id: string;
  /** Where it is tracked. */
  source: string;
  matches(spec: CaseSpec, request: RawRequest, outcome: RawOutcome, violation: Violation): boolean;
}

const verbatimLabel = (spec: CaseSpec, label: string) => spec.verbatim !== undefined && spec.mutation === label;
const emptyBodyStatus = (outcome: RawOutcome, status: number) =>
  outcome.kind === 'response' && outcome.response.status === status && outcome.response.body.length === 0;

export const KNOWN_DEFECTS: readonly KnownDefect[] = [
  {
    // Node answers 417 itself, with an empty body: no envelope, no x-request-id.
    id: 'expect-header-417-not-envelope',
    source: 'found by the adversarial suite (reported)',
    matches: (spec, _request, outcome, violation) =>
      violation.invariant === 'non_envelope' && verbatimLabel(spec, 'Expect other than 100-continue') && emptyBodyStatus(outcome, 417),
  },
  {
    // Node's requireHostHeader answers 400 itself, with an empty body.
    id: 'missing-host-400-not-envelope',
    source: 'found by the adversarial suite (reported)',
    matches: (spec, _request, outcome, violation) =>
      violation.invariant === 'non_envelope' && verbatimLabel(spec, 'HTTP/1.1 without Host') && emptyBodyStatus(outcome, 400),
  },
  {
    // No 'connect' listener: Node destroys the socket without a word.
    id: 'connect-method-dropped',
    source: 'found by the adversarial suite (reported)',
    matches: (spec, _request, outcome, violation) => violation.invariant === 'no_response' && verbatimLabel(spec, 'CONNECT') && outcome.kind === 'closed',
  },
];

/** The id of the known defect that explains this violation, or null. */
export function knownDefectOf(spec: CaseSpec, request: RawRequest, outcome: RawOutcome, violation: Violation): string | null {
  return KNOWN_DEFECTS.find((defect) => defect.matches(spec, request, outcome, violation))?.id ?? null;
}
