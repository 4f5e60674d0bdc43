// OpenAI's `chunking_strategy`: `auto` (what the service always does: the VAD's speech decides the
// boundaries) or a `server_vad` object whose parameters set the VAD for this request. OpenAI's client
// sends the object as form fields `chunking_strategy[type]`, `chunking_strategy[threshold]`, ...; a JSON
// string of the object is taken too. Mapping onto Silero's parameters (engine/vad-params.ts):
// `threshold` -> threshold, `silence_duration_ms` -> minSilenceDurationMs, `prefix_padding_ms` ->
// speechPadMs (Silero pads both ends of a region by it; OpenAI's pads the start).
import type { VadParams } from '../engine/vad-params.js';
import { InvalidRequestField } from '../pipeline/pipeline-errors.js';

export const CHUNKING_STRATEGY_FIELD = 'chunking_strategy';
const OBJECT_FIELD = /^chunking_strategy\[(\w+)\]$/;

/** OpenAI's defaults for a server_vad object's omitted parameters. */
export const SERVER_VAD_DEFAULTS = Object.freeze({ threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 });
/** whisper.cpp converts milliseconds to samples in 32-bit arithmetic; and nobody pauses for 10 s mid-speech. */
const MAX_MS = 10_000;

export type RequestVadParams = Pick<VadParams, 'threshold' | 'minSilenceDurationMs' | 'speechPadMs'>;

const bad = (message: string) => new InvalidRequestField(message);

/** Whether `name` is one of the chunking_strategy fields (plain or `[key]` form). */
export function isChunkingStrategyField(name: string): boolean {
  return name === CHUNKING_STRATEGY_FIELD || OBJECT_FIELD.test(name);
}

/** The request's VAD parameters from `chunking_strategy`; null for `auto` or when absent. */
export function parseChunkingStrategy(fields: Record<string, string>): RequestVadParams | null {
  // No prototype: a member named `constructor` or `__proto__` is a member like any other, refused below.
  const members: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    const member = OBJECT_FIELD.exec(name)?.[1];
    if (member) members[member] = value;
  }
  const raw = fields[CHUNKING_STRATEGY_FIELD];
  if (raw !== undefined && raw !== '') {
    if (Object.keys(members).length > 0) throw bad('send chunking_strategy or its chunking_strategy[...] fields, not both');
    if (raw === 'auto') return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw bad('chunking_strategy must be auto or a server_vad object');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('chunking_strategy must be auto or a server_vad object');
    // Own members copied one by one: Object.assign would set `__proto__` rather than copy it.
    for (const [name, value] of Object.entries(parsed)) members[name] = value;
  }
  if (Object.keys(members).length === 0) return null;
  if (members.type !== 'server_vad') throw bad('chunking_strategy[type] must be server_vad');
  for (const name of Object.keys(members)) {
    if (name !== 'type' && !Object.hasOwn(SERVER_VAD_DEFAULTS, name)) {
      throw bad('chunking_strategy takes type, threshold, prefix_padding_ms and silence_duration_ms only');
    }
  }
  const threshold = numberMember(members.threshold, SERVER_VAD_DEFAULTS.threshold, 'threshold', 0, 1, false);
  const prefix = numberMember(members.prefix_padding_ms, SERVER_VAD_DEFAULTS.prefix_padding_ms, 'prefix_padding_ms', 0, MAX_MS, true);
  const silence = numberMember(members.silence_duration_ms, SERVER_VAD_DEFAULTS.silence_duration_ms, 'silence_duration_ms', 0, MAX_MS, true);
  return { threshold, minSilenceDurationMs: silence, speechPadMs: prefix };
}

function numberMember(raw: unknown, fallback: number, name: string, min: number, max: number, integer: boolean): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*[0-9.eE+-]+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw bad(`chunking_strategy[${name}] must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}
