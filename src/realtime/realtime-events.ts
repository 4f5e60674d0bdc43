// The session's server events (svc-agent-v1). Every event carries a `sequence` strictly increasing
// over the session; text events carry their turn and a revision: a turn's partials are numbered
// revisions, each naming the one it replaces, and its turn_final is the last revision.
import type { StartMessage } from '../contract/realtime-start.js';
import { EVENT_SCHEMA } from '../contract/realtime-start.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { SPEAKERS_LIVE, SPEAKERS_OFF } from './live-speakers.js';
import type { TransportName } from './transport/transport.js';

export interface TurnText {
  turnId: string;
  text: string;
  /** Seconds of session audio. */
  start: number;
  end: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export class EventSequence {
  private sequence = 0;
  private readonly revisions = new Map<string, number>();

  next(type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
    return { type, sequence: ++this.sequence, ...fields };
  }

  /** A partial or turn_final: the turn's next revision, replacing its previous one. */
  revision(type: 'partial' | 'turn_final', turn: TurnText): Record<string, unknown> {
    const previous = this.revisions.get(turn.turnId) ?? 0;
    const revision = previous + 1;
    this.revisions.set(turn.turnId, revision);
    return this.next(type, {
      turn_id: turn.turnId,
      revision_id: `${turn.turnId}.${revision}`,
      ...(previous > 0 ? { replaces_revision_id: `${turn.turnId}.${previous}` } : {}),
      text: turn.text,
      start: round3(turn.start),
      end: round3(turn.end),
    });
  }
}

/** `ready`: what the session runs with. */
export function readyFields(start: StartMessage, transport: TransportName): Record<string, unknown> {
  return {
    session_id: start.sessionId,
    event_schema: EVENT_SCHEMA,
    language: start.language,
    model: start.model,
    audio: { encoding: 'pcm16', sample_rate: SAMPLE_RATE, channels: 1 },
    transport,
    speakers: start.diarization ? SPEAKERS_LIVE : SPEAKERS_OFF,
  };
}

/** The session's text: every turn's that has any, in order. */
export function finalText(turns: readonly TurnText[]): string {
  return turns
    .map((t) => t.text)
    .filter((t) => t !== '')
    .join(' ');
}

/** `final`: every turn transcribed, over `seconds` of audio (what is billed), with the session's reports. */
export function finalFields(sessionId: string, turns: readonly TurnText[], seconds: number, reports: Record<string, unknown>): Record<string, unknown> {
  return {
    session_id: sessionId,
    text: finalText(turns),
    turns: turns.map((t) => ({ turn_id: t.turnId, text: t.text, start: round3(t.start), end: round3(t.end) })),
    audio_seconds: round3(seconds),
    ...reports,
  };
}
