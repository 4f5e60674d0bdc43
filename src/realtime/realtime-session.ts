// One realtime session (the contract's flow): `start` → `ready` → binary PCM16 frames → `stop` →
// `final` and close. The session admits its start, takes the audio its billing admits, and hands it
// to its turn analyser (turn-analyser.ts: the buffer, endpointing, partial and final decodes). A
// session that closes aborts its decodes.
import { type AdmissionWatcher, admitRealtimeSession, type RealtimeAdmissionDeps } from '../application/admit-realtime-session.js';
import type { RealtimeUsage, UsageLimit } from '../application/realtime-usage.js';
import type { BlockReason } from '../billing/billing-decision.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import type { KeyCutOff, KeyStandingWatch } from '../billing/key-standing-watch.js';
import { parseStart, sessionVocabulary, type StartCredential, type StartMessage } from '../contract/realtime-start.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { ModelId } from '../domain/model-ids.js';
import type { EngineWork, WorkClass } from '../domain/work-classes.js';
import type { Engine } from '../engine/engine.js';
import { PipelineError } from '../pipeline/pipeline-errors.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import { AudioIntake } from './audio-intake.js';
import { LiveSpeakers } from './live-speakers.js';
import { billingRefusal, CLOSE, RealtimeRefusal, sessionTooLong, startRefusal, unauthorized } from './realtime-errors.js';
import { EventSequence, finalFields, finalText, readyFields } from './realtime-events.js';
import type { SessionCapacity } from './session-capacity.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './session-limits.js';
import type { SessionOutcome } from './session-outcome.js';
import { PROTOCOL, protocolRefusal, readMessage, type SessionState } from './session-protocol.js';
import { SessionVocabulary } from './session-vocabulary.js';
import { ShownTurnText } from './shown-turn-text.js';
import type { ConnectionHandlers, RealtimeConnection, TransportName } from './transport/transport.js';
import { TurnAnalyser } from './turn-analyser.js';

export { DEFAULT_SESSION_LIMITS, type SessionLimits } from './session-limits.js';
export type { SessionOutcome } from './session-outcome.js';

export interface SessionDeps extends Omit<RealtimeAdmissionDeps, 'clock'> {
  /** Epoch milliseconds, for client secrets' expiry (default Date.now; the service passes its clock). */
  clock?: () => number;
  /** Tells an open session that its key was revoked or its usage paused. */
  watch: Pick<KeyStandingWatch, 'watch'>;
  capacity: SessionCapacity;
  engines: Record<ModelId, Engine>;
  transport: TransportName;
  limits?: Partial<SessionLimits>;
  /** Milliseconds, for the real-time check (tests may inject). */
  now?: () => number;
  onEnd?: (outcome: SessionOutcome) => void;
}

/** The session's own phase; past a limit, the protocol reads it as `past_limit`. */
type Phase = Exclude<SessionState, 'past_limit'>;

export class RealtimeSession implements ConnectionHandlers {
  private phase: Phase = 'awaiting_start';
  private readonly limits: SessionLimits;
  private readonly events = new EventSequence();
  private start: StartMessage | null = null;
  /** What is shown of each turn's words: formatted, redacted (null until the start is accepted). */
  private shown: ShownTurnText | null = null;
  /** The session's vocabulary and patterns over its turns (null until the start is accepted). */
  private vocabulary: SessionVocabulary | null = null;
  /** The session's turns (null until the start is accepted). */
  private turns: TurnAnalyser | null = null;
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
  /** Audio as it arrives, taken as far as billing admits it. */
  private intake: AudioIntake | null = null;
  private closeReason = '';
  private readyAt = 0;
  /** Aborted when the session closes: its decodes and VAD calls stop. */
  private readonly stopped = new AbortController();
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

  /** Samples taken since `ready`. */
  private get received(): number {
    return this.turns?.received ?? 0;
  }

  /** Where the session stands, as the protocol table reads it. */
  private state(): SessionState {
    if (this.ending && (this.phase === 'streaming' || this.phase === 'stopping')) return 'past_limit';
    return this.phase;
  }

  message(data: Uint8Array, binary: boolean): void {
    const state = this.state();
    const message = readMessage(state, data, binary);
    const step = PROTOCOL[state][message.kind];
    switch (step) {
      case 'ignore':
        return;
      case 'begin':
        this.phase = 'starting';
        clearTimeout(this.startTimer);
        return void this.begin(data.slice());
      case 'take_audio':
        return this.audio(data);
      case 'stop':
        return this.stop();
      case 'update_vocabulary':
        return message.kind === 'update_vocabulary' ? this.updateVocabulary(message.vocabulary) : undefined;
      default:
        return this.refuse(protocolRefusal(step));
    }
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
    this.intake?.close();
    // Audio whose text the client was never given (the client gone, the session cut off) is not billed.
    const untranscribed = this.received - (this.billed ?? this.turns?.transcribed() ?? 0);
    const usage = this.usage;
    void usage?.close(untranscribed);
    // What the ledger gets: a slice recorded when it filled stays recorded, untranscribed or not.
    const metered = usage ? usage.meteredSamples : this.received - untranscribed;
    this.usage = null;
    this.turns?.discard();
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
        turns: this.turns?.turns.length ?? 0,
        billingBlocked: this.billingBlocked,
        voiceIds: this.knownSpeakers.length > 0 ? [...(this.start?.knownSpeakers ?? [])] : [],
      });
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
    this.sendFinal(this.turns?.transcribed() ?? 0);
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
    this.intake?.close();
    if (this.phase !== 'streaming') return;
    this.phase = 'stopping';
    void this.finish();
  }

  private async begin(frame: Uint8Array): Promise<void> {
    try {
      const asked = parseStart(frame);
      const admitted = await admitRealtimeSession(asked, this.admission(), { ...this.deps, clock: this.deps.clock ?? Date.now });
      if (admitted === null) return;
      const start = { ...asked, clinicalText: admitted.clinicalText };
      const { key, usage } = admitted;
      this.usage = usage;
      const release = await this.deps.capacity.take(key.tenant, key.plan, start.diarization);
      if (this.isClosed()) return release();
      this.release = release;
      this.unwatch = this.deps.watch.watch(key.id, (cutOff) => this.cutOff(cutOff));
      this.start = start;
      this.tenant = key.tenant;
      this.openTurns(start, admitted.dictionary);
      this.phase = 'streaming';
      this.readyAt = this.now();
      this.send(this.events.next('ready', readyFields(start, this.deps.transport)));
    } catch (error) {
      this.refuse(startRefusal(error));
    }
  }

  /** What the admission tells the session, and asks of it. */
  private admission(): AdmissionWatcher {
    return {
      isClosed: () => this.isClosed(),
      authenticated: (key, credential) => {
        this.key = key;
        this.credential = credential;
      },
      enrolled: (voices) => (this.knownSpeakers = voices),
      billingBlocked: (reason) => (this.billingBlocked = reason),
      limit: (limit) => this.limitReached(limit),
      resume: () => this.intake?.resume(),
    };
  }

  /** The start is accepted: what the session shows, decodes with and labels, and its turns. */
  private openTurns(start: StartMessage, dictionary: string[]): void {
    const engine = this.deps.engines[start.model];
    const shown = new ShownTurnText(start.clinicalText, start.language);
    const vocabulary = new SessionVocabulary(start.vocabulary, dictionary, start.patterns, start.language);
    this.shown = shown;
    this.vocabulary = vocabulary;
    if (start.diarization) {
      // Labels follow the text: they wait behind the session's finals.
      this.speakers = new LiveSpeakers(
        engine,
        {
          labels: (fields) => this.send(this.events.next('speaker_labels', fields)),
          unavailable: (reason) => this.send(this.events.next('speaker_status', { status: 'unavailable', reason })),
        },
        this.work('realtime_partial'),
        undefined,
        this.knownSpeakers,
      );
    }
    this.turns = new TurnAnalyser({
      engine,
      language: start.language,
      tenant: this.tenant,
      sessionId: start.sessionId,
      shown,
      vocabulary,
      speakers: this.speakers,
      events: this.events,
      send: (event) => this.send(event),
      signal: this.stopped.signal,
      limits: this.limits,
      isStreaming: () => this.phase === 'streaming',
      failed: (error) => this.failed(error),
    });
    this.intake = new AudioIntake(this.usage!, this.turns);
  }

  private stop(): void {
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
      if (!(error instanceof PipelineError)) throw error;
      this.send(this.events.next('vocabulary_rejected', { message: error.message }));
      return;
    }
    const next = this.vocabulary!.update(terms);
    this.send(
      this.events.next('vocabulary_updated', {
        terms: next.terms.length,
        mode: next.mode,
        applies_from_turn: this.turns!.nextTurnId,
      }),
    );
  }

  private audio(frame: Uint8Array): void {
    if (frame.length % 2 !== 0)
      return this.refuse(new RealtimeRefusal('invalid_request', CLOSE.policy, 'INVALID_AUDIO', 'audio frames are 16-bit PCM: an even number of bytes'));
    const sent = frame.length / 2;
    const aheadSeconds = (this.received + this.intake!.waiting + sent) / SAMPLE_RATE - (this.now() - this.readyAt) / 1000;
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
    this.intake!.add(frame);
  }

  /**
   * An analysis failed: the turns' own refusal (silence), or a decode or VAD call (the engine's error
   * is not the client's business: a fixed message).
   */
  private failed(error: unknown): void {
    if (error instanceof RealtimeRefusal) return this.refuse(error);
    this.refuse(new RealtimeRefusal('internal_error', CLOSE.internal, 'INTERNAL_ERROR', 'the session failed while decoding'));
  }

  /** This session's engine calls of `workClass`, for the engine's scheduler. */
  private work(workClass: WorkClass): EngineWork {
    return { workClass, tenant: this.tenant, request: this.start!.sessionId };
  }

  private async finish(): Promise<void> {
    // Audio sent before `stop` that waits for the next slice's reservation is taken first.
    await this.intake!.taken();
    await this.turns!.idle();
    try {
      if (!this.isStopping()) return;
      await this.turns!.closeTurns();
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

  /** The final record: every turn transcribed, over `samples` of audio (what is billed). */
  private sendFinal(samples: number): void {
    const text = finalText(this.turns!.turns);
    const reports = this.vocabulary!.reports(text, this.shown!, this.start!.clinicalText);
    this.send(this.events.next('final', finalFields(this.start!.sessionId, this.turns!.turns, samples / SAMPLE_RATE, reports)));
    this.billed = samples;
  }
}
