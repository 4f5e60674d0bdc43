// One realtime session (the contract's flow): `start` → `ready` → binary PCM16 frames → `stop` →
// `final` and close. Audio since the last turn ended is kept (bounded by the turn limit) and looked
// at every `stepSeconds` of new audio: the VAD finds its speech (turn-detector.ts decides where the
// turn stands), a short decode with the encoder shrunk to the audio gives the partial, and a turn
// that ended is decoded in full once for its immutable turn_final. That full decode starts as soon as
// the turn pauses (beside the partials), so when the pause ends the turn its text is ready or nearly
// (bench/realtime.ts: turn_final p95 from ~960 ms to ~750 ms at two sessions); a pause that does not
// end the turn wastes it. That full decode is an uploaded window's (turn-recognition.ts): the
// session's vocabulary under the safety check, term corrections, patterns, the hallucination guard.
// One analysis runs at a time per session; audio that arrives meanwhile waits for the next. Audio is
// never written anywhere. A session that closes aborts its decodes.
import { ShownTurnText } from './shown-turn-text.js';
import { redactedSpans } from '../pipeline/clinical-text-stage.js';
import { requireEntitlements } from '../contract/request-entitlements.js';
import { EntitlementMissing } from '../pipeline/pipeline-errors.js';
import { audioContextFor, type Engine } from '../engine/engine.js';
import type { TranscribeOptions } from '../engine/engine.js';
import type { EngineWork, WorkClass } from '../domain/work-classes.js';
import type { ModelId } from '../domain/model-ids.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import type { BlockReason } from '../billing/billing-decision.js';
import type { KeyCutOff, KeyStandingWatch } from '../billing/key-standing-watch.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { KeyStore } from '../store/key-store.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { RealtimeClientSecretStore } from '../store/realtime-client-secret-store.js';
import { RealtimeUsage, type UsageLimit } from './realtime-usage.js';
import { CLOSE, invalidStart, RealtimeRefusal, storeUnavailable } from './realtime-errors.js';
import { isStoreUnavailable } from '../store/store-unavailable-error.js';
import { EventSequence, type TurnText } from './realtime-events.js';
import { LiveSpeakers, SPEAKERS_LIVE, SPEAKERS_OFF } from './live-speakers.js';
import type { SessionCapacity } from './session-capacity.js';
import { keyOfStart } from './start-credential.js';
import { EVENT_SCHEMA, parseStart, sessionVocabulary, type StartCredential, type StartMessage } from './start-message.js';
import type { ConnectionHandlers, RealtimeConnection, TransportName } from './transport/transport.js';
import { DEFAULT_ENDPOINTING, turnState, type Endpointing } from './turn-detector.js';
import { recogniseTurn, turnDecodeOptions, type TurnRecognition } from './turn-recognition.js';
import { addPatternTallies, emptyPatternTally, patternsBlock, shiftPatternTally, type PatternTally } from '../pipeline/pattern-stage.js';
import type { PatternProgram } from '../pipeline/patterns/pattern-program.js';
import { patternPrograms } from '../pipeline/patterns.js';
import { addTallies, EMPTY_TALLY, shiftTally, type VocabularyTally } from '../pipeline/prompted-recognition.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { auditVocabulary, disabledVocabularyAudit, planVocabulary, type VocabularyPlan } from '../pipeline/vocabulary-audit.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';

export interface SessionLimits {
  /** New audio (s) between two analyses. */
  stepSeconds: number;
  /** How far (s) the audio received may run ahead of the wall clock since `ready`. */
  maxAheadSeconds: number;
  /** Seconds without speech after which the session is closed. */
  silenceTimeoutSeconds: number;
  /** Seconds to send `start` after connecting. */
  startTimeoutSeconds: number;
  endpointing: Endpointing;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  stepSeconds: 0.25,
  maxAheadSeconds: 20,
  silenceTimeoutSeconds: 300,
  startTimeoutSeconds: 10,
  endpointing: DEFAULT_ENDPOINTING,
};

/** How a session ended, for the access audit log: ids, counts and codes, never content. */
export interface SessionOutcome {
  sessionId: string | null;
  /** The key and tenant of a session that started (null: refused before its key was known). */
  keyId: string | null;
  tenantId: string | null;
  /** What the start presented: the key itself, or a client secret it minted (null: no valid start). */
  credential: StartCredential['kind'] | null;
  closeCode: number;
  closeReason: string;
  /** Audio received, and the part of it metered (less a cut-off session's untranscribed tail). */
  audioSeconds: number;
  meteredSeconds: number;
  turns: number;
  /** Billing's word: the start refused for a block, or the session cut at one (null: neither). */
  billingBlocked: BlockReason | null;
  /** The enrolled voices the session's live labels named when they matched (ids only; empty: none). */
  voiceIds: string[];
}

export interface SessionDeps {
  keys: KeyStore;
  /** Where the client secrets a `start` may present instead of a key are used up. */
  clientSecrets: Pick<RealtimeClientSecretStore, 'claim'>;
  /** Epoch milliseconds, for client secrets' expiry (default Date.now; the service passes its clock). */
  clock?: () => number;
  /** Notes the use of the key a session starts with (its "last used"); the service passes its recorder. */
  keyUse?: Pick<KeyUseRecorder, 'record'>;
  /** Admits the session's audio slice by slice (refusing a start when usage is blocked) and meters it. */
  billing: Pick<UsageBilling, 'reserveUpTo' | 'release' | 'meter' | 'terms'>;
  /** Tells an open session that its key was revoked or its usage paused. */
  watch: Pick<KeyStandingWatch, 'watch'>;
  capacity: SessionCapacity;
  engines: Record<ModelId, Engine>;
  /** The tenants' enrolled voices a start names (diarization.known_speakers); absent: such a start is refused. */
  voices?: Pick<VoiceProfileStore, 'get'>;
  transport: TransportName;
  limits?: Partial<SessionLimits>;
  /** Milliseconds, for the real-time check (tests may inject). */
  now?: () => number;
  onEnd?: (outcome: SessionOutcome) => void;
}

type Phase = 'awaiting_start' | 'starting' | 'streaming' | 'stopping' | 'closed';

const PAD_SECONDS = 0.15;
const TEXT = new TextDecoder('utf-8', { fatal: false });

export class RealtimeSession implements ConnectionHandlers {
  private phase: Phase = 'awaiting_start';
  private readonly limits: SessionLimits;
  private readonly events = new EventSequence();
  private start: StartMessage | null = null;
  /** What is shown of each turn's words: formatted, redacted (null until the start is accepted). */
  private shown: ShownTurnText | null = null;
  private engine: Engine | null = null;
  /** The key's tenant, once started: the engine's scheduler shares workers between tenants. */
  private tenant = '';
  /** Live speaker labels, when the start asked for diarization. */
  private speakers: LiveSpeakers | null = null;
  private release: (() => void) | null = null;
  private usage: RealtimeUsage | null = null;
  private key: ApiKeyRecord | null = null;
  /** The enrolled voices the start named, looked up among the key's tenant's. */
  private knownSpeakers: KnownSpeaker[] = [];
  /** How `key` was presented (meaningful once it is set). */
  private credential: StartCredential['kind'] = 'api_key';
  private unwatch: (() => void) | null = null;
  /** Set once the session may take no more audio (a limit reached): it finishes, then closes with this. */
  private ending: RealtimeRefusal | null = null;
  /** The audio the final record was sent for (what is billed); null before it. */
  private billed: number | null = null;
  private billingBlocked: BlockReason | null = null;
  /** PCM16 frames received while the next slice's reservation was undecided, waiting for it. */
  private held: Uint8Array[] = [];
  private heldSamples = 0;
  /** Set while a `stop` waits for held audio to be taken. */
  private heldDrained: (() => void) | null = null;
  private closeReason = '';
  private readyAt = 0;
  /** Samples received since `ready`. */
  private received = 0;
  /** Audio since the last turn ended, as chunks; `bufferStart` is its first sample's session index. */
  private chunks: Float32Array[] = [];
  private buffered = 0;
  private bufferStart = 0;
  private analysedAt = 0;
  private busy: Promise<void> | null = null;
  private turnNumber = 1;
  private candidate = false;
  private lastPartial = '';
  private partials = 0;
  /**
   * The session sample up to which the client was given text: the furthest audio a partial it was
   * sent decoded. A session that ends before that turn's turn_final is billed to here (see `transcribed`).
   */
  private deliveredTo = 0;
  /** The audio the last partial decoded (the buffer's first `samples` from `from`). */
  private partialAudio: { from: number; samples: number } | null = null;
  /** The current turn's full decode (settle), by the audio it covers. */
  private settled: { from: number; samples: number; text: Promise<TurnRecognition> } | null = null;
  /** The vocabulary turns are decoded with; an update waits in `nextVocabulary` for the next turn. */
  private vocabulary: VocabularyPlan = planVocabulary([], [], 'en');
  private nextVocabulary: VocabularyPlan | null = null;
  /** Every request term the session was given (start and updates), for the final audit. */
  private requestTerms: string[] = [];
  private dictionaryTerms: string[] = [];
  private patterns: PatternProgram[] = [];
  /** What prompting and the patterns did, over the session's turns (session time). */
  private vocabularyTally: VocabularyTally | null = null;
  private patternTally: PatternTally | null = null;
  /** Aborted when the session closes: its decodes and VAD calls stop. */
  private readonly stopped = new AbortController();
  private lastSpeechAt = 0;
  private readonly turns: TurnText[] = [];
  private readonly startTimer: NodeJS.Timeout;

  constructor(
    private readonly connection: RealtimeConnection,
    private readonly deps: SessionDeps,
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...deps.limits };
    this.startTimer = setTimeout(
      () => this.refuse(new RealtimeRefusal('invalid_request', CLOSE.timeout, 'START_TIMEOUT', 'no start message was received in time')),
      this.limits.startTimeoutSeconds * 1000,
    );
  }

  private now(): number {
    return this.deps.now?.() ?? performance.now();
  }

  private get turnId(): string {
    return `t${this.turnNumber}`;
  }

  message(data: Uint8Array, binary: boolean): void {
    if (this.isClosed()) return;
    if (this.phase === 'awaiting_start') {
      if (binary)
        return this.refuse(
          new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_BEFORE_READY', 'send the start message and wait for ready before any audio'),
        );
      this.phase = 'starting';
      clearTimeout(this.startTimer);
      void this.begin(data.slice());
      return;
    }
    if (this.phase === 'starting') {
      return this.refuse(new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_BEFORE_READY', 'wait for ready before sending anything else'));
    }
    if (!binary) return this.control(data);
    // Past a limit the session finishes what it has: audio still on its way is not taken.
    if (this.ending) return;
    if (this.phase !== 'streaming') return this.refuse(new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_AFTER_STOP', 'no audio after stop'));
    this.audio(data);
  }

  closed(code: number): void {
    clearTimeout(this.startTimer);
    const wasOpen = this.phase !== 'closed';
    this.phase = 'closed';
    this.stopped.abort();
    this.release?.();
    this.release = null;
    this.unwatch?.();
    this.unwatch = null;
    this.dropHeld();
    // Audio whose text the client was never given (the client gone, the session cut off) is not billed.
    const untranscribed = this.received - (this.billed ?? this.transcribed());
    const usage = this.usage;
    void usage?.close(untranscribed);
    // What the ledger gets: a slice recorded when it filled stays recorded, untranscribed or not.
    const metered = usage ? usage.meteredSamples : this.received - untranscribed;
    this.usage = null;
    this.chunks = [];
    if (wasOpen)
      this.deps.onEnd?.({
        sessionId: this.start?.sessionId ?? null,
        keyId: this.key?.id ?? null,
        tenantId: this.key?.tenant ?? null,
        credential: this.key ? this.credential : null,
        closeCode: code,
        closeReason: this.closeReason,
        audioSeconds: this.received / SAMPLE_RATE,
        meteredSeconds: metered / SAMPLE_RATE,
        turns: this.turns.length,
        billingBlocked: this.billingBlocked,
        voiceIds: this.knownSpeakers.length > 0 ? [...(this.start?.knownSpeakers ?? [])] : [],
      });
  }

  /** The enrolled voices of `ids`, each the tenant's (an unknown id and another tenant's are refused alike). */
  private async enrolledVoices(ids: readonly string[], tenant: string): Promise<KnownSpeaker[]> {
    if (ids.length === 0) return [];
    if (!this.deps.voices) throw invalidStart('diarization.known_speakers is not available on this listener');
    const known: KnownSpeaker[] = [];
    for (const [i, id] of ids.entries()) {
      const voice = await this.deps.voices.get(tenant, id);
      if (!voice) throw invalidStart(`diarization.known_speakers[${i}] is not a voice enrolled for this key's tenant`);
      known.push({ name: voice.name, profile: voice.profile });
    }
    return known;
  }

  /** Read through a method: a session may close while an await is pending. */
  private isClosed(): boolean {
    return this.phase === 'closed';
  }

  private isStopping(): boolean {
    return this.phase === 'stopping';
  }

  private send(event: Record<string, unknown>): void {
    if (this.phase !== 'closed') this.connection.send(JSON.stringify(event));
  }

  private refuse(refusal: RealtimeRefusal): void {
    if (this.isClosed()) return;
    this.send(this.events.next('error', { code: refusal.code, message: refusal.message, reason: refusal.reason }));
    this.end(refusal.closeCode, refusal.reason);
  }

  private end(code: number, reason: string): void {
    if (this.isClosed()) return;
    this.closeReason = reason;
    this.connection.close(code, reason);
    this.closed(code);
  }

  /**
   * The key may have no more (revoked, paused): the session ends now, with `final` for the turns
   * already transcribed (the turn under way is not decoded further, and billed as far as its
   * partials went), then the error and close.
   */
  private cutOff(cutOff: KeyCutOff): void {
    if (this.isClosed() || this.start === null) return;
    if (cutOff === 'paused') this.billingBlocked = 'paused';
    this.stopped.abort();
    this.sendFinal(this.transcribed());
    this.refuse(cutOff === 'revoked' ? unauthorized() : billingRefusal(new BillingBlockedError('paused', 'realtime', null)));
  }

  /**
   * The audio admitted ran out (the allowance, spend cap or credit; the plan's longest session): no
   * more is taken, what was received is finished as after `stop`, and the session closes with the
   * refusal after its `final`.
   */
  private limitReached(limit: UsageLimit): void {
    if (this.isClosed() || this.ending) return;
    if (limit.kind === 'billing') this.billingBlocked = limit.refusal.reason;
    this.ending = limit.kind === 'billing' ? billingRefusal(limit.refusal) : sessionTooLong(limit.maxMs);
    // Audio past the limit is not taken.
    this.dropHeld();
    if (this.phase !== 'streaming') return;
    this.phase = 'stopping';
    void this.finish();
  }

  private async begin(frame: Uint8Array): Promise<void> {
    try {
      const start = parseStart(frame);
      const key = await keyOfStart(start.credential, { keys: this.deps.keys, clientSecrets: this.deps.clientSecrets, clock: this.deps.clock ?? Date.now });
      if (this.isClosed()) return;
      if (key === null || key.revokedAt !== null) throw unauthorized();
      // Used: the key, or a client secret minted from it, was accepted (whatever billing or seats say next).
      this.deps.keyUse?.record(key);
      this.key = key;
      this.credential = start.credential.kind;
      try {
        requireEntitlements({ patterns: start.patterns }, key);
      } catch (error) {
        if (!(error instanceof EntitlementMissing)) throw error;
        throw new RealtimeRefusal('entitlement_denied', CLOSE.forbidden, 'ENTITLEMENT_DENIED', error.message);
      }
      // Before a seat is taken: the voices the start names are the tenant's, or it is refused.
      this.knownSpeakers = await this.enrolledVoices(start.knownSpeakers, key.tenant);
      if (this.isClosed()) return;
      // Before a seat is taken: the key's stored terms join the request's.
      const dictionary = start.dictionary ? await this.deps.keys.getDictionary(key.id, start.language) : [];
      if (this.isClosed()) return;
      // Before any seat or audio: the first slice of audio is reserved (the allowance, spend cap and
      // credit decide, counting work admitted elsewhere, and an operator's pause).
      const usage = await RealtimeUsage.open(this.deps.billing, key, start, SAMPLE_RATE, {
        limit: (limit) => this.limitReached(limit),
        resume: () => this.resumeHeld(),
      }).catch((error: unknown) => {
        if (!(error instanceof BillingBlockedError)) throw error;
        this.billingBlocked = error.reason;
        throw billingRefusal(error);
      });
      if (this.isClosed()) return void usage.close();
      this.usage = usage;
      const release = await this.deps.capacity.take(key.tenant, key.plan, start.diarization);
      if (this.isClosed()) return release();
      this.release = release;
      this.unwatch = this.deps.watch.watch(key.id, (cutOff) => this.cutOff(cutOff));
      this.start = start;
      this.tenant = key.tenant;
      this.dictionaryTerms = dictionary;
      this.requestTerms = [...start.vocabulary];
      this.vocabulary = planVocabulary(start.vocabulary, dictionary, start.language);
      this.vocabularyTally = this.vocabulary.terms.length > 0 ? EMPTY_TALLY : null;
      this.patterns = patternPrograms(start.patterns);
      this.shown = new ShownTurnText(start.clinicalText, start.language);
      this.patternTally = this.patterns.length > 0 ? emptyPatternTally(this.patterns.length) : null;
      this.engine = this.deps.engines[start.model];
      if (start.diarization) {
        // Labels follow the text: they wait behind the session's finals.
        this.speakers = new LiveSpeakers(
          this.engine,
          {
            labels: (fields) => this.send(this.events.next('speaker_labels', fields)),
            unavailable: (reason) => this.send(this.events.next('speaker_status', { status: 'unavailable', reason })),
          },
          this.work('realtime_partial'),
          undefined,
          this.knownSpeakers,
        );
      }
      this.phase = 'streaming';
      this.readyAt = this.now();
      this.send(
        this.events.next('ready', {
          session_id: start.sessionId,
          event_schema: EVENT_SCHEMA,
          language: start.language,
          model: start.model,
          audio: { encoding: 'pcm16', sample_rate: SAMPLE_RATE, channels: 1 },
          transport: this.deps.transport,
          speakers: start.diarization ? SPEAKERS_LIVE : SPEAKERS_OFF,
        }),
      );
    } catch (error) {
      if (error instanceof RealtimeRefusal) return this.refuse(error);
      this.refuse(
        isStoreUnavailable(error) ? storeUnavailable() : new RealtimeRefusal('internal_error', CLOSE.internal, 'INTERNAL_ERROR', 'the session could not start'),
      );
    }
  }

  private control(frame: Uint8Array): void {
    let message: Record<string, unknown> | undefined;
    try {
      const value = JSON.parse(TEXT.decode(frame)) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) message = value as Record<string, unknown>;
    } catch {
      message = undefined;
    }
    if (message?.type === 'update_vocabulary' && Object.keys(message).every((k) => k === 'type' || k === 'vocabulary')) {
      return this.updateVocabulary(message.vocabulary);
    }
    if (message?.type !== 'stop')
      return this.refuse(
        new RealtimeRefusal(
          'invalid_request',
          CLOSE.policy,
          'UNEXPECTED_TEXT',
          'text frames after start must be {"type":"stop"} or {"type":"update_vocabulary","vocabulary":[...]}; audio goes in binary frames',
        ),
      );
    if (this.phase !== 'streaming') return;
    this.phase = 'stopping';
    void this.finish();
  }

  /**
   * A new request vocabulary (the key's dictionary stays merged as at the start), from the next turn
   * on: the turn under way keeps the terms its decode may have started with. A vocabulary that breaks
   * the rules is answered and ignored; the session goes on with the terms it had.
   */
  private updateVocabulary(value: unknown): void {
    let terms: string[];
    try {
      terms = sessionVocabulary(value, this.start!.language);
    } catch (error) {
      if (!(error instanceof RealtimeRefusal)) throw error;
      this.send(this.events.next('vocabulary_rejected', { message: error.message }));
      return;
    }
    this.nextVocabulary = planVocabulary(terms, this.dictionaryTerms, this.start!.language);
    for (const term of terms) if (!this.requestTerms.some((t) => t.toLowerCase() === term.toLowerCase())) this.requestTerms.push(term);
    this.vocabularyTally ??= this.nextVocabulary.terms.length > 0 ? EMPTY_TALLY : null;
    this.send(
      this.events.next('vocabulary_updated', {
        terms: this.nextVocabulary.terms.length,
        mode: this.nextVocabulary.mode,
        applies_from_turn: `t${this.turnNumber + 1}`,
      }),
    );
  }

  private audio(frame: Uint8Array): void {
    if (frame.length % 2 !== 0)
      return this.refuse(new RealtimeRefusal('invalid_request', CLOSE.policy, 'INVALID_AUDIO', 'audio frames are 16-bit PCM: an even number of bytes'));
    const sent = frame.length / 2;
    const aheadSeconds = (this.received + this.heldSamples + sent) / SAMPLE_RATE - (this.now() - this.readyAt) / 1000;
    if (aheadSeconds > this.limits.maxAheadSeconds) {
      return this.refuse(
        new RealtimeRefusal(
          'rate_limited',
          CLOSE.tooFast,
          'AUDIO_FASTER_THAN_REALTIME',
          `audio may run at most ${this.limits.maxAheadSeconds} s ahead of real time`,
        ),
      );
    }
    // Audio waiting for the next slice's reservation goes first.
    const rest = this.held.length > 0 ? frame : this.take(frame);
    if (rest) this.hold(rest, 'last');
  }

  /**
   * Takes what the key's reserved audio admits of a PCM16 frame: the part not admitted while the next
   * slice is undecided (to take when `resume` is told), or null (all taken, or dropped past a limit).
   */
  private take(frame: Uint8Array): Uint8Array | null {
    const sent = frame.length / 2;
    const samples = this.usage ? this.usage.received(sent) : sent;
    if (samples > 0) {
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const pcm = new Float32Array(samples);
      for (let i = 0; i < samples; i++) pcm[i] = view.getInt16(i * 2, true) / 32768;
      this.chunks.push(pcm);
      this.buffered += samples;
      this.received += samples;
      this.schedule();
    }
    return samples < sent && !this.ending ? frame.subarray(samples * 2) : null;
  }

  private hold(frame: Uint8Array, where: 'first' | 'last'): void {
    // Copied: a transport's frame is reused once its handler returns.
    if (where === 'first') this.held.unshift(frame.slice());
    else this.held.push(frame.slice());
    this.heldSamples += frame.length / 2;
  }

  /** The next slice is decided: the audio that waited for it is taken, in order, as far as it is admitted. */
  private resumeHeld(): void {
    while (this.held.length > 0 && !this.isClosed() && !this.ending) {
      const frame = this.held.shift()!;
      this.heldSamples -= frame.length / 2;
      const rest = this.take(frame);
      if (rest) return this.hold(rest, 'first');
    }
    this.dropHeld();
  }

  /** No audio waits any more (all taken, or past a limit): a `stop` waiting for it may go on. */
  private dropHeld(): void {
    this.held = [];
    this.heldSamples = 0;
    this.heldDrained?.();
    this.heldDrained = null;
  }

  private schedule(): void {
    if (this.busy || this.phase !== 'streaming') return;
    if (this.received - this.analysedAt < this.limits.stepSeconds * SAMPLE_RATE) return;
    this.busy = this.analyse(false)
      .catch((error: unknown) => this.failed(error))
      .finally(() => {
        this.busy = null;
        this.schedule();
      });
  }

  /** A decode or VAD call failed (the engine's error is not the client's business: a fixed message). */
  private failed(_error: unknown): void {
    this.refuse(new RealtimeRefusal('internal_error', CLOSE.internal, 'INTERNAL_ERROR', 'the session failed while decoding'));
  }

  private buffer(): Float32Array {
    if (this.chunks.length !== 1) {
      const joined = new Float32Array(this.buffered);
      let at = 0;
      for (const c of this.chunks) {
        joined.set(c, at);
        at += c.length;
      }
      this.chunks = [joined];
    }
    return this.chunks[0] ?? new Float32Array(0);
  }

  /** Drops the buffer's first `samples` (they belong to a finished turn, or to silence). */
  private drop(samples: number): void {
    const pcm = this.buffer().subarray(Math.min(samples, this.buffered));
    this.chunks = pcm.length > 0 ? [pcm.slice()] : [];
    this.bufferStart += this.buffered - pcm.length;
    this.buffered = pcm.length;
  }

  /** One look at the buffer; `closing`: the stream ended, so any speech left ends its turn. */
  private async analyse(closing: boolean): Promise<void> {
    this.analysedAt = this.received;
    const pcm = this.buffer();
    const seconds = pcm.length / SAMPLE_RATE;
    if (pcm.length < SAMPLE_RATE * 0.1) return;
    const regions = (await this.engine!.detectSpeech(pcm, {}, { work: this.work('realtime_final'), signal: this.stopped.signal })).segments;
    if (this.isClosed()) return;
    const state = turnState(regions, seconds, this.limits.endpointing);
    if (state.kind === 'silence') {
      // Only audio the VAD has looked at counts as silence: a session whose analyses lag is not timed out.
      if (this.bufferStart + pcm.length - this.lastSpeechAt > this.limits.silenceTimeoutSeconds * SAMPLE_RATE) {
        return this.refuse(new RealtimeRefusal('invalid_request', CLOSE.timeout, 'SILENCE_TIMEOUT', `no speech for ${this.limits.silenceTimeoutSeconds} s`));
      }
      // Nothing said: keep only a little, so the next word's start is not lost.
      this.drop(Math.max(0, pcm.length - Math.round(0.5 * SAMPLE_RATE)));
      return;
    }
    this.lastSpeechAt = this.bufferStart + Math.round(state.speechEnd * SAMPLE_RATE);
    const ended = closing ? { ...state, kind: 'ended' as const, cut: seconds } : state;
    const turnSamples = Math.round(Math.min(seconds, state.speechEnd + PAD_SECONDS) * SAMPLE_RATE);
    if (ended.kind === 'ended') {
      // The decode begun in the pause that ended the turn, when it covers the same audio.
      const recognised = await this.settle(pcm, turnSamples, regions);
      if (this.isClosed()) return;
      const { text } = recognised;
      const { turn, counts } = this.shown!.final(this.turnText(text, state.speechStart, ended.speechEnd));
      this.tallyTurn(recognised);
      // A turn whose every segment the guard dropped still ends in a turn_final (empty, saying so)
      // when it had partials or dropped text: its speech is never left without an answer.
      if (text !== '' || this.partials > 0 || recognised.droppedSegments > 0) {
        this.send({
          ...this.events.revision('turn_final', turn),
          dropped_segments: recognised.droppedSegments,
          confidence: recognised.confidence === null ? null : Math.round(recognised.confidence * 1000) / 1000,
          ...(recognised.vocabulary ? { safety_fallback: recognised.vocabulary.fallbackChunks > 0 } : {}),
          ...(counts ? { redaction_counts: counts } : {}),
        });
        this.turns.push(turn);
        const speech = turnSpeech(regions, turnSamples);
        this.speakers?.addTurn(turn.turnId, this.bufferStart / SAMPLE_RATE, pcm.slice(0, turnSamples), speech);
      }
      this.drop(Math.round(('cut' in ended ? ended.cut : seconds) * SAMPLE_RATE));
      this.turnNumber++;
      // An update waits for a turn boundary: the next turn is decoded with it.
      if (this.nextVocabulary) {
        this.vocabulary = this.nextVocabulary;
        this.nextVocabulary = null;
      }
      this.candidate = false;
      this.lastPartial = '';
      this.partials = 0;
      this.settled = null;
      return;
    }
    if (ended.kind === 'speaking' && this.candidate) {
      this.candidate = false;
      this.send(this.events.next('turn_continuation', { turn_id: this.turnId }));
    }
    // In a pause the turn's audio has not grown since the last look: the same audio decodes to the same
    // partial, so it is not decoded again, and the cores go to the turn's final decode instead.
    const grown = this.partialAudio?.from !== this.bufferStart || this.partialAudio.samples !== turnSamples;
    const text = grown ? await this.decode(pcm.subarray(0, turnSamples)) : this.lastPartial;
    this.partialAudio = { from: this.bufferStart, samples: turnSamples };
    if (this.isClosed()) return;
    // In a pause the turn may be over: its final decode starts now, beside the partials, rather than
    // when the pause has lasted long enough to end the turn.
    if (ended.kind === 'pausing') void this.settle(pcm, turnSamples, regions);
    const shown = text === '' ? null : this.shown!.partial(text);
    if (shown !== null && text !== this.lastPartial) {
      this.lastPartial = text;
      this.partials++;
      this.send(this.events.revision('partial', this.turnText(shown, state.speechStart, state.speechEnd)));
      this.deliveredTo = Math.max(this.deliveredTo, this.bufferStart + turnSamples);
    }
    if (ended.kind === 'pausing' && !this.candidate) {
      this.candidate = true;
      this.send(
        this.events.next('turn_end_candidate', {
          turn_id: this.turnId,
          end: Math.round((this.bufferStart / SAMPLE_RATE + state.speechEnd) * 1000) / 1000,
        }),
      );
    }
  }

  /** This session's engine calls of `workClass`, for the engine's scheduler. */
  private work(workClass: WorkClass): EngineWork {
    return { workClass, tenant: this.tenant, request: this.start!.sessionId };
  }

  private turnText(text: string, start: number, end: number): TurnText {
    const offset = this.bufferStart / SAMPLE_RATE;
    return { turnId: this.turnId, text, start: offset + start, end: offset + end };
  }

  /**
   * Starts the turn's full decode over the buffer's first `samples`, unless it is under way already.
   * The same audio decodes to the same text, so if the pause ends the turn this is its turn_final.
   */
  private settle(pcm: Float32Array, samples: number, regions: readonly SpeechRegion[]): Promise<TurnRecognition> {
    const settled = this.settled;
    if (settled && settled.from === this.bufferStart && settled.samples === samples) return settled.text;
    // Copied: the buffer's chunks are replaced while the decode runs.
    const text = recogniseTurn({
      pcm: pcm.slice(0, samples),
      regions: turnSpeech(regions, samples),
      language: this.start!.language,
      vocabulary: this.vocabulary,
      patterns: this.patterns,
      transcribe: (audio, options, signal, onSegments) =>
        this.engine!.transcribe(audio, options, { work: this.work('realtime_final'), ...(signal ? { signal } : {}), ...(onSegments ? { onSegments } : {}) }),
      signal: this.stopped.signal,
    });
    // A speculative decode nobody awaits must not be an unhandled rejection; whoever awaits it sees it.
    text.catch(() => {});
    this.settled = { from: this.bufferStart, samples, text };
    return text;
  }

  /** A partial: greedy, without context from earlier turns, the encoder shrunk to the audio it has. */
  private async decode(pcm: Float32Array): Promise<string> {
    const seconds = pcm.length / SAMPLE_RATE;
    const options: TranscribeOptions = {
      ...turnDecodeOptions(this.start!.language, seconds),
      audioCtx: audioContextFor(Math.max(seconds, 1), this.engine!.header),
    };
    const transcript = await this.engine!.transcribe(pcm, options, { work: this.work('realtime_partial'), signal: this.stopped.signal });
    return transcript.text.trim();
  }

  /** A finished turn's vocabulary and pattern figures, added to the session's (moved to session time). */
  private tallyTurn(recognised: TurnRecognition): void {
    const offset = this.bufferStart / SAMPLE_RATE;
    if (recognised.vocabulary) this.vocabularyTally = addTallies(this.vocabularyTally ?? EMPTY_TALLY, shiftTally(recognised.vocabulary, offset));
    if (recognised.patterns && this.patternTally) this.patternTally = addPatternTallies(this.patternTally, shiftPatternTally(recognised.patterns, offset));
  }

  /**
   * The final record's vocabulary audit and pattern report, in the upload response's shapes: over
   * every term the session was given (start and updates) and every turn's text.
   */
  private sessionReports(text: string): Record<string, unknown> {
    const plan = planVocabulary(this.requestTerms, this.dictionaryTerms, this.start!.language);
    return {
      vocabulary:
        plan.terms.length > 0
          ? auditVocabulary(plan, this.vocabularyTally ?? EMPTY_TALLY, text, this.start!.language)
          : disabledVocabularyAudit(this.start!.language),
      ...(this.patternTally
        ? {
            patterns: patternsBlock(
              this.shown?.redacting ? redactedSpans(this.patternTally, this.shown.report, this.start!.clinicalText.redactSubstitution) : this.patternTally,
            ),
          }
        : {}),
      ...(this.shown?.redacting ? { redactions: this.shown.report.redactions, redaction_counts: this.shown.report.counts } : {}),
    };
  }

  private async finish(): Promise<void> {
    // Audio sent before `stop` that waits for the next slice's reservation is taken first.
    if (this.held.length > 0) await new Promise<void>((resolve) => (this.heldDrained = resolve));
    await this.busy;
    try {
      if (!this.isStopping()) return;
      // Whatever is still buffered ends its turn (a finished turn's tail may hold another one).
      for (let pass = 0; pass < 4 && this.buffered > 0; pass++) {
        const before = this.bufferStart;
        await this.analyse(true);
        if (this.isClosed() || this.bufferStart === before) break;
      }
      if (!this.isStopping()) return;
      // The last turns' labels come before the final record, so the session's labelling is complete.
      await this.speakers?.settled();
      if (!this.isStopping()) return;
      this.sendFinal(this.received);
      // A session stopped at a limit says why after its final record.
      if (this.ending) this.refuse(this.ending);
      else this.end(CLOSE.normal, 'FINAL');
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * The audio billed when the session ends before its turn under way is finished (a hang-up, a key
   * cut off): the turns that ended (the audio before the buffer), and of the turn under way as far as
   * its partials went. The client was given that text, so it was transcribed for it; were it free,
   * a client reconnecting for every turn and reading only partials would never use up its allowance.
   * Only as far as the partials went, not all the audio the turn has: what lies beyond was never
   * decoded, and the audio billed is the audio transcribed (REALTIME.md, Billing). Once the turn
   * ends, its audio is before the buffer and counted there, once.
   */
  private transcribed(): number {
    return Math.max(this.received - this.buffered, this.deliveredTo);
  }

  /** The final record: every turn transcribed, over `samples` of audio (what is billed). */
  private sendFinal(samples: number): void {
    const text = this.turns
      .map((t) => t.text)
      .filter((t) => t !== '')
      .join(' ');
    this.send(
      this.events.next('final', {
        session_id: this.start!.sessionId,
        text,
        turns: this.turns.map((t) => ({ turn_id: t.turnId, text: t.text, start: Math.round(t.start * 1000) / 1000, end: Math.round(t.end * 1000) / 1000 })),
        audio_seconds: Math.round((samples / SAMPLE_RATE) * 1000) / 1000,
        ...this.sessionReports(text),
      }),
    );
    this.billed = samples;
  }
}

/** The speech regions inside a turn's first `samples` (seconds from the buffer's start). */
function turnSpeech(regions: readonly SpeechRegion[], samples: number): SpeechRegion[] {
  const end = samples / SAMPLE_RATE;
  return regions.filter((r) => r.start < end).map((r) => ({ start: r.start, end: Math.min(r.end, end) }));
}

function unauthorized(): RealtimeRefusal {
  return new RealtimeRefusal(
    'unauthorized',
    CLOSE.unauthorized,
    'UNAUTHORIZED',
    'a valid API key, or an unused and unexpired client secret of one, is required in the start message',
  );
}

function sessionTooLong(maxMs: number): RealtimeRefusal {
  const length = maxMs >= 60_000 ? `${Math.round(maxMs / 60_000)} minutes` : `${Math.round(maxMs / 1000)} seconds`;
  return new RealtimeRefusal('invalid_request', CLOSE.timeout, 'SESSION_TOO_LONG', `a session takes at most ${length} of audio on this plan: start a new one`);
}

function billingRefusal(error: BillingBlockedError): RealtimeRefusal {
  return new RealtimeRefusal('billing_blocked', CLOSE.billingBlocked, 'BILLING_BLOCKED', error.message);
}
