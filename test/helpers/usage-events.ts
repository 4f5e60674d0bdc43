// A usage event with plain defaults (a job's, in English, no features, no safety events), for tests
// and benchmarks of the ledger: name what matters to the case, the rest stays out of the way.
import { NO_SAFETY_EVENTS, type UsageEvent } from '../../src/store/usage-record.js';

export function usageEvent(fields: Partial<UsageEvent> & Pick<UsageEvent, 'eventKey'>): UsageEvent {
  return {
    tenant: 'acme',
    keyId: 'key_a',
    period: '2026-05',
    atMs: 0,
    route: 'job',
    model: 'svc-medical-1',
    languageFamily: 'en',
    diarization: false,
    vocabulary: false,
    patterns: false,
    audioMs: 0,
    safety: NO_SAFETY_EVENTS,
    ...fields,
  };
}
