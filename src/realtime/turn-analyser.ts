// A realtime session's turns. Audio since the last turn ended is kept (bounded by the turn limit) and
// looked at every `stepSeconds` of new audio: the VAD finds its speech (turn-detector.ts decides
// where the turn stands), a short decode with the encoder shrunk to the audio gives the partial, and
// a turn that ended is decoded in full once for its immutable turn_final. That full decode starts as
// soon as the turn pauses (beside the partials), so when the pause ends the turn its text is ready or
// nearly (bench/realtime.ts: turn_final p95 from ~960 ms to ~750 ms at two sessions); a pause that
// does not end the turn wastes it, and is stopped as soon as that is known (the turn goes on, or its
// audio changed): a final decode computes at the most urgent class, so a stale one would hold a core
// from the partials and the other sessions' finals for a whole window's encoder. That full decode is an uploaded window's (turn-recognition.ts): the
// session's vocabulary under the safety check, term corrections, patterns, the hallucination guard.
// One analysis runs at a time per session; audio that arrives meanwhile waits for the next. Audio is
// never written anywhere.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { LanguageFamily } from '../domain/language-families.js';
import type { EngineWork, WorkClass } from '../domain/work-classes.js';
import { audioContextFor, type Engine, type TranscribeOptions } from '../engine/engine.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';
import type { LiveSpeakers } from './live-speakers.js';
import { silenceTimeout } from './realtime-errors.js';
import type { EventSequence, TurnText } from './realtime-events.js';
import type { SessionLimits } from './session-limits.js';
import type { SessionVocabulary } from './session-vocabulary.js';
import type { ShownTurnText } from './shown-turn-text.js';
import { turnState } from './turn-detector.js';
import { recogniseTurn, turnDecodeOptions, type TurnRecognition } from './turn-recognition.js';

const PAD_SECONDS = 0.15;

/** What the analyser works with, and how it tells the session. */
export interface TurnAnalyserParts {
  engine: Engine;
  language: LanguageFamily;
  /** Whose engine calls these are, for the engine's scheduler: the key's tenant and the session. */
  tenant: string;
  sessionId: string;
  shown: ShownTurnText;
  vocabulary: SessionVocabulary;
  speakers: LiveSpeakers | null;
  events: EventSequence;
  send(event: Record<string, unknown>): void;
  /** Aborted when the session closes: its decodes and VAD calls stop, and nothing more is sent. */
  signal: AbortSignal;
  limits: Pick<SessionLimits, 'stepSeconds' | 'endpointing' | 'silenceTimeoutSeconds'>;
  /** Read after each await: a session may stop streaming while one is pending. */
  isStreaming(): boolean;
  /** An analysis failed: a decode or VAD call, or no speech for the silence timeout (a RealtimeRefusal). */
  failed(error: unknown): void;
}

export class TurnAnalyser {
  /** Samples taken since `ready`. */
  received = 0;
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
  private settled: { from: number; samples: number; text: Promise<TurnRecognition>; stop: AbortController } | null = null;
  private lastSpeechAt = 0;
  readonly turns: TurnText[] = [];

  constructor(private readonly parts: TurnAnalyserParts) {}

  /** The turn under way. */
  get turnId(): string {
    return `t${this.turnNumber}`;
  }

  /** The turn an update of the vocabulary applies from. */
  get nextTurnId(): string {
    return `t${this.turnNumber + 1}`;
  }

  get bufferedSamples(): number {
    return this.buffered;
  }

  /** New audio: analysed once `stepSeconds` of it have come since the last look. */
  push(pcm: Float32Array): void {
    this.chunks.push(pcm);
    this.buffered += pcm.length;
    this.received += pcm.length;
    this.schedule();
  }

  /** The analysis under way, if any, has finished. */
  async idle(): Promise<void> {
    await this.busy;
  }

  /** The stream ended: whatever is still buffered ends its turn (a finished turn's tail may hold another one). */
  async closeTurns(): Promise<void> {
    for (let pass = 0; pass < 4 && this.buffered > 0; pass++) {
      const before = this.bufferStart;
      await this.analyse(true);
      if (this.parts.signal.aborted || this.bufferStart === before) break;
    }
  }

  /** The session closed: its audio is let go. */
  discard(): void {
    this.chunks = [];
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
  transcribed(): number {
    return Math.max(this.received - this.buffered, this.deliveredTo);
  }

  private schedule(): void {
    if (this.busy || !this.parts.isStreaming()) return;
    if (this.received - this.analysedAt < this.parts.limits.stepSeconds * SAMPLE_RATE) return;
    this.busy = this.analyse(false)
      .catch((error: unknown) => this.parts.failed(error))
      .finally(() => {
        this.busy = null;
        this.schedule();
      });
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
    const { parts } = this;
    this.analysedAt = this.received;
    const pcm = this.buffer();
    const seconds = pcm.length / SAMPLE_RATE;
    if (pcm.length < SAMPLE_RATE * 0.1) return;
    const regions = (await parts.engine.detectSpeech(pcm, {}, { work: this.work('realtime_final'), signal: parts.signal })).segments;
    if (parts.signal.aborted) return;
    const state = turnState(regions, seconds, parts.limits.endpointing);
    if (state.kind === 'silence') {
      // Only audio the VAD has looked at counts as silence: a session whose analyses lag is not timed out.
      if (this.bufferStart + pcm.length - this.lastSpeechAt > parts.limits.silenceTimeoutSeconds * SAMPLE_RATE)
        throw silenceTimeout(parts.limits.silenceTimeoutSeconds);
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
      if (parts.signal.aborted) return;
      this.endTurn(recognised, pcm, turnSamples, regions, state.speechStart, ended.speechEnd);
      this.drop(Math.round(('cut' in ended ? ended.cut : seconds) * SAMPLE_RATE));
      this.turnNumber++;
      // An update waits for a turn boundary: the next turn is decoded with it.
      parts.vocabulary.turnEnded();
      this.candidate = false;
      this.lastPartial = '';
      this.partials = 0;
      this.settled = null;
      return;
    }
    if (ended.kind === 'speaking' && this.candidate) {
      this.candidate = false;
      // The pause did not end the turn: its final decode covers audio that is not the turn's.
      this.abandonSettle();
      parts.send(parts.events.next('turn_continuation', { turn_id: this.turnId }));
    }
    // In a pause the turn's audio has not grown since the last look: the same audio decodes to the same
    // partial, so it is not decoded again, and the cores go to the turn's final decode instead.
    const grown = this.partialAudio?.from !== this.bufferStart || this.partialAudio.samples !== turnSamples;
    const text = grown ? await this.decode(pcm.subarray(0, turnSamples)) : this.lastPartial;
    this.partialAudio = { from: this.bufferStart, samples: turnSamples };
    if (parts.signal.aborted) return;
    // In a pause the turn may be over: its final decode starts now, beside the partials, rather than
    // when the pause has lasted long enough to end the turn.
    if (ended.kind === 'pausing') void this.settle(pcm, turnSamples, regions);
    const shown = text === '' ? null : parts.shown.partial(text);
    if (shown !== null && text !== this.lastPartial) {
      this.lastPartial = text;
      this.partials++;
      parts.send(parts.events.revision('partial', this.turnText(shown, state.speechStart, state.speechEnd)));
      this.deliveredTo = Math.max(this.deliveredTo, this.bufferStart + turnSamples);
    }
    if (ended.kind === 'pausing' && !this.candidate) {
      this.candidate = true;
      parts.send(
        parts.events.next('turn_end_candidate', {
          turn_id: this.turnId,
          end: Math.round((this.bufferStart / SAMPLE_RATE + state.speechEnd) * 1000) / 1000,
        }),
      );
    }
  }

  /** A turn that ended: its turn_final, its place in the final record, its audio for the speaker labels. */
  private endTurn(recognised: TurnRecognition, pcm: Float32Array, turnSamples: number, regions: readonly SpeechRegion[], start: number, end: number): void {
    const { parts } = this;
    const { text } = recognised;
    const { turn, counts } = parts.shown.final(this.turnText(text, start, end));
    parts.vocabulary.tally(recognised, this.bufferStart / SAMPLE_RATE);
    // A turn whose every segment the guard dropped still ends in a turn_final (empty, saying so)
    // when it had partials or dropped text: its speech is never left without an answer.
    if (text === '' && this.partials === 0 && recognised.droppedSegments === 0) return;
    parts.send({
      ...parts.events.revision('turn_final', turn),
      dropped_segments: recognised.droppedSegments,
      confidence: recognised.confidence === null ? null : Math.round(recognised.confidence * 1000) / 1000,
      ...(recognised.vocabulary ? { safety_fallback: recognised.vocabulary.fallbackChunks > 0 } : {}),
      ...(counts ? { redaction_counts: counts } : {}),
    });
    this.turns.push(turn);
    parts.speakers?.addTurn(turn.turnId, this.bufferStart / SAMPLE_RATE, pcm.slice(0, turnSamples), turnSpeech(regions, turnSamples));
  }

  /** This session's engine calls of `workClass`, for the engine's scheduler. */
  private work(workClass: WorkClass): EngineWork {
    return { workClass, tenant: this.parts.tenant, request: this.parts.sessionId };
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
    this.abandonSettle();
    const { parts } = this;
    // Stopped when the session closes, or when the decode turns out not to be the turn's (abandonSettle).
    const stop = new AbortController();
    const signal = AbortSignal.any([parts.signal, stop.signal]);
    // Copied: the buffer's chunks are replaced while the decode runs.
    const text = recogniseTurn({
      pcm: pcm.slice(0, samples),
      regions: turnSpeech(regions, samples),
      language: parts.language,
      vocabulary: parts.vocabulary.current,
      patterns: parts.vocabulary.patterns,
      transcribe: (audio, options, callSignal, onSegments) =>
        parts.engine.transcribe(audio, options, {
          work: this.work('realtime_final'),
          ...(callSignal ? { signal: callSignal } : {}),
          ...(onSegments ? { onSegments } : {}),
        }),
      signal,
    });
    // A speculative decode nobody awaits must not be an unhandled rejection; whoever awaits it sees it.
    text.catch(() => {});
    this.settled = { from: this.bufferStart, samples, text, stop };
    return text;
  }

  /** The speculative final decode under way covers audio that is not the turn's: stop it, free its core. */
  private abandonSettle(): void {
    this.settled?.stop.abort();
    this.settled = null;
  }

  /** A partial: greedy, without context from earlier turns, the encoder shrunk to the audio it has. */
  private async decode(pcm: Float32Array): Promise<string> {
    const { parts } = this;
    const seconds = pcm.length / SAMPLE_RATE;
    const options: TranscribeOptions = {
      ...turnDecodeOptions(parts.language, seconds),
      audioCtx: audioContextFor(Math.max(seconds, 1), parts.engine.header),
    };
    const transcript = await parts.engine.transcribe(pcm, options, { work: this.work('realtime_partial'), signal: parts.signal });
    return transcript.text.trim();
  }
}

/** The speech regions inside a turn's first `samples` (seconds from the buffer's start). */
function turnSpeech(regions: readonly SpeechRegion[], samples: number): SpeechRegion[] {
  const end = samples / SAMPLE_RATE;
  return regions.filter((r) => r.start < end).map((r) => ({ start: r.start, end: Math.min(r.end, end) }));
}
