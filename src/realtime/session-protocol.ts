// The realtime protocol as one table: the session's states, the messages a client may send, and
// what each message does in each state (REALTIME.md "The flow"). A session reads its state, asks the
// table, and does the step; a message a state does not take is refused by name here, or ignored.
import { CLOSE, RealtimeRefusal } from './realtime-errors.js';

/** Where a session stands. `past_limit`: streaming or stopping after a limit was reached (it finishes what it has). */
export type SessionState = 'awaiting_start' | 'starting' | 'streaming' | 'stopping' | 'past_limit' | 'closed';

/** A client frame, as the session's state reads it: before `ready` every text frame is a start. */
export type ClientMessage =
  { kind: 'start' } | { kind: 'audio' } | { kind: 'stop' } | { kind: 'update_vocabulary'; vocabulary: unknown } | { kind: 'unexpected_text' };

const REFUSALS = {
  audio_before_start: () =>
    new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_BEFORE_READY', 'send the start message and wait for ready before any audio'),
  before_ready: () => new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_BEFORE_READY', 'wait for ready before sending anything else'),
  audio_after_stop: () => new RealtimeRefusal('invalid_request', CLOSE.policy, 'AUDIO_AFTER_STOP', 'no audio after stop'),
  unexpected_text: () =>
    new RealtimeRefusal(
      'invalid_request',
      CLOSE.policy,
      'UNEXPECTED_TEXT',
      'text frames after start must be {"type":"stop"} or {"type":"update_vocabulary","vocabulary":[...]}; audio goes in binary frames',
    ),
} as const;
export type ProtocolRefusal = keyof typeof REFUSALS;

/**
 * What the session does: `begin` admits the start, `take_audio` takes a frame, `stop` finishes the
 * session (when it is streaming), `update_vocabulary` answers an update; or it ignores the message,
 * or refuses it and closes.
 */
export type ProtocolStep = 'begin' | 'take_audio' | 'stop' | 'update_vocabulary' | 'ignore' | ProtocolRefusal;

export const PROTOCOL: Readonly<Record<SessionState, Readonly<Record<ClientMessage['kind'], ProtocolStep>>>> = {
  awaiting_start: { start: 'begin', audio: 'audio_before_start', stop: 'begin', update_vocabulary: 'begin', unexpected_text: 'begin' },
  starting: { start: 'before_ready', audio: 'before_ready', stop: 'before_ready', update_vocabulary: 'before_ready', unexpected_text: 'before_ready' },
  streaming: { start: 'unexpected_text', audio: 'take_audio', stop: 'stop', update_vocabulary: 'update_vocabulary', unexpected_text: 'unexpected_text' },
  stopping: { start: 'unexpected_text', audio: 'audio_after_stop', stop: 'ignore', update_vocabulary: 'update_vocabulary', unexpected_text: 'unexpected_text' },
  // Audio still on its way past a limit is not taken; a stop is taken where the session still streams.
  past_limit: { start: 'unexpected_text', audio: 'ignore', stop: 'stop', update_vocabulary: 'update_vocabulary', unexpected_text: 'unexpected_text' },
  closed: { start: 'ignore', audio: 'ignore', stop: 'ignore', update_vocabulary: 'ignore', unexpected_text: 'ignore' },
};

const TEXT = new TextDecoder('utf-8', { fatal: false });

/** What a frame is in `state`: audio, the start (any text before ready: its parser judges it), or a control message. */
export function readMessage(state: SessionState, frame: Uint8Array, binary: boolean): ClientMessage {
  if (binary) return { kind: 'audio' };
  if (state === 'awaiting_start' || state === 'starting') return { kind: 'start' };
  if (state === 'closed') return { kind: 'unexpected_text' };
  let message: Record<string, unknown> | undefined;
  try {
    const value = JSON.parse(TEXT.decode(frame)) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) message = value as Record<string, unknown>;
  } catch {
    message = undefined;
  }
  if (message?.type === 'update_vocabulary' && Object.keys(message).every((k) => k === 'type' || k === 'vocabulary')) {
    return { kind: 'update_vocabulary', vocabulary: message.vocabulary };
  }
  return message?.type === 'stop' ? { kind: 'stop' } : { kind: 'unexpected_text' };
}

export function protocolRefusal(refusal: ProtocolRefusal): RealtimeRefusal {
  return REFUSALS[refusal]();
}
