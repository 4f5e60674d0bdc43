// Who may open a realtime session, and what it holds once admitted (REALTIME.md "The flow"): the
// pieces the HTTP requests use, in the realtime start's order. The credential stands for a key (the
// key itself, or a client secret it minted, used up here: start-credential.ts) that is not revoked;
// the key may use what the start asks for (requireEntitlements, as the upload and the job body); the
// enrolled voices it names are its tenant's; its stored terms join the request's; and the first slice
// of audio is reserved (the allowance, spend cap and credit decide, counting work admitted elsewhere,
// and an operator's pause). Seats are the listener's to count once this is done.
import type { BlockReason } from '../billing/billing-decision.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import { type ClinicalTextFields, parseClinicalTextFields } from '../contract/clinical-text-fields.js';
import { withKeyTextDefaults } from '../contract/key-text-defaults.js';
import type { StartCredential, StartMessage } from '../contract/realtime-start.js';
import { requireEntitlements } from '../contract/request-entitlements.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import type { KeyStore } from '../store/key-store.js';
import type { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { RealtimeClientSecretStore } from '../store/realtime-client-secret-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { CredentialRefused, UnusableKnownSpeaker } from './application-errors.js';
import { RealtimeUsage, type UsageHandlers } from './realtime-usage.js';
import { keyOfStart } from './start-credential.js';

export interface RealtimeAdmissionDeps {
  keys: Pick<KeyStore, 'authenticate' | 'get' | 'getDictionary'>;
  /** Where the client secrets a `start` may present instead of a key are used up. */
  clientSecrets: Pick<RealtimeClientSecretStore, 'claim'>;
  /** Epoch milliseconds, for client secrets' expiry. */
  clock: () => number;
  /** Notes the use of the key a session starts with (its "last used"), as the HTTP edge does. */
  keyUse?: Pick<KeyUseRecorder, 'record'>;
  /** Admits the session's audio slice by slice (refusing a start when usage is blocked) and meters it. */
  billing: Pick<UsageBilling, 'reserveUpTo' | 'release' | 'meter' | 'terms'>;
  /** The tenants' enrolled voices a start names (diarization.known_speakers); absent: such a start is refused. */
  voices?: Pick<VoiceProfileStore, 'get'>;
}

/** What the session is told while it is admitted, and what it tells: it may close meanwhile. */
export interface AdmissionWatcher extends UsageHandlers {
  isClosed(): boolean;
  /** The credential stood for this key (whatever is decided next): the session's audit line names it. */
  authenticated(key: ApiKeyRecord, credential: StartCredential['kind']): void;
  /** The enrolled voices the start named, all the tenant's: its live labels may name them. */
  enrolled(voices: KnownSpeaker[]): void;
  /** Billing refused the start (the BillingBlockedError follows). */
  billingBlocked(reason: BlockReason): void;
}

export interface RealtimeAdmission {
  key: ApiKeyRecord;
  knownSpeakers: KnownSpeaker[];
  /** The key's stored terms for the start's language (empty when the start left them out). */
  dictionary: string[];
  /** The session's reserved audio, its first slice reserved. */
  usage: RealtimeUsage;
  /** What the session's words become: the start's smart_format and redaction with the key's standing choices. */
  clinicalText: ClinicalTextFields;
}

/**
 * The admitted session, or null when it closed meanwhile (nothing is kept). Throws CredentialRefused,
 * EntitlementMissing, UnusableKnownSpeaker, BillingBlockedError, or a store's outage.
 */
export async function admitRealtimeSession(start: StartMessage, session: AdmissionWatcher, deps: RealtimeAdmissionDeps): Promise<RealtimeAdmission | null> {
  const key = await keyOfStart(start.credential, deps);
  if (session.isClosed()) return null;
  if (key === null || key.revokedAt !== null) throw new CredentialRefused();
  // Used: the key, or a client secret minted from it, was accepted (whatever billing or seats say next).
  deps.keyUse?.record(key);
  session.authenticated(key, start.credential.kind);
  requireEntitlements({ patterns: start.patterns }, key);
  // Before any audio: the voices the start names are the tenant's, or it is refused.
  const knownSpeakers = await enrolledVoices(start.knownSpeakers, key.tenant, deps.voices);
  session.enrolled(knownSpeakers);
  if (session.isClosed()) return null;
  const dictionary = start.dictionary ? await deps.keys.getDictionary(key.id, start.language) : [];
  if (session.isClosed()) return null;
  const usage = await RealtimeUsage.open(deps.billing, key, start, SAMPLE_RATE, session).catch((error: unknown) => {
    if (error instanceof BillingBlockedError) session.billingBlocked(error.reason);
    throw error;
  });
  if (session.isClosed()) {
    void usage.close();
    return null;
  }
  // The key's standing smart_format and redaction over what the start asked (the start's own values were checked).
  const clinicalText = parseClinicalTextFields(withKeyTextDefaults(start.clinicalTextSent, key, 'json'), 'json');
  return { key, knownSpeakers, dictionary, usage, clinicalText };
}

/** The enrolled voices of `ids`, each the tenant's (an unknown id and another tenant's are refused alike). */
async function enrolledVoices(ids: readonly string[], tenant: string, voices: RealtimeAdmissionDeps['voices']): Promise<KnownSpeaker[]> {
  if (ids.length === 0) return [];
  if (!voices) throw new UnusableKnownSpeaker('diarization.known_speakers is not available on this listener');
  const known: KnownSpeaker[] = [];
  for (const [i, id] of ids.entries()) {
    const voice = await voices.get(tenant, id);
    if (!voice) throw new UnusableKnownSpeaker(`diarization.known_speakers[${i}] is not a voice enrolled for this key's tenant`);
    known.push({ name: voice.name, profile: voice.profile });
  }
  return known;
}
