// The parts of a verbose_json transcript (src/contract/response-body.ts) the formatter reads, as
// plain shapes: clinical-text sits below the contract, and a caller may hand in a transcript it kept
// or one from another engine. Fields it does not know travel through untouched.
import { FormatOptionError } from './smart-format.js';

export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
  speaker?: string;
  [field: string]: unknown;
}

export interface TranscriptSegmentText {
  text: string;
  start: number;
  end: number;
  speaker?: string;
  [field: string]: unknown;
}

export interface FormattableTranscript {
  text: string;
  language?: string;
  segments?: TranscriptSegmentText[];
  words?: TranscriptWord[];
  [field: string]: unknown;
}

/** `value` as a transcript, or a FormatOptionError naming the first field that is not what it must be. */
export function readTranscript(value: unknown): FormattableTranscript {
  if (!isObject(value)) throw new FormatOptionError('transcript', 'the transcript must be a JSON object');
  if (typeof value.text !== 'string') throw new FormatOptionError('text', 'text must be a string');
  if (value.language !== undefined && typeof value.language !== 'string') throw new FormatOptionError('language', 'language must be a string');
  if (value.segments !== undefined) timedList(value.segments, 'segments', 'text');
  if (value.words !== undefined) timedList(value.words, 'words', 'word');
  return value as FormattableTranscript;
}

function timedList(list: unknown, name: string, textField: string): void {
  if (!Array.isArray(list)) throw new FormatOptionError(name, `${name} must be an array`);
  list.forEach((item: unknown, i) => {
    const field = `${name}[${i}]`;
    if (!isObject(item)) throw new FormatOptionError(field, `${field} must be an object`);
    if (typeof item[textField] !== 'string') throw new FormatOptionError(`${field}.${textField}`, `${field}.${textField} must be a string`);
    for (const time of ['start', 'end']) {
      if (typeof item[time] !== 'number' || !Number.isFinite(item[time])) throw new FormatOptionError(`${field}.${time}`, `${field}.${time} must be a number`);
    }
    if (item.speaker !== undefined && typeof item.speaker !== 'string') throw new FormatOptionError(`${field}.speaker`, `${field}.speaker must be a string`);
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
