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

// Empty: the defects this list held (Node's bare 417 for an unmet Expect, its bare 400 for an
// HTTP/1.1 request without Host, CONNECT dropped unanswered) are fixed, and any of them coming back
// fails the fuzz run. A new entry must match its trigger and its wrong answer exactly, as those did.
export const KNOWN_DEFECTS: readonly KnownDefect[] = [];

/** The id of the known defect that explains this violation, or null. */
export function knownDefectOf(spec: CaseSpec, request: RawRequest, outcome: RawOutcome, violation: Violation): string | null {
  return KNOWN_DEFECTS.find((defect) => defect.matches(spec, request, outcome, violation))?.id ?? null;
}
