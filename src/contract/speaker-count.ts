// How many voices a diarized request expects, on the direct route (form fields, strings) and jobs
// (JSON, numbers) alike: `max_speakers`, the contract's labelling ceiling (voices beyond it are
// still detected, their passages unlabelled for review), and `min_speakers`, which has the diarizer
// split to at least that many voices when it finds them (a clinician knows a consultation has two
// people in it even when the voices are alike). 1 to 4 each, the minimum not above the maximum;
// either needs diarize=true: a count for a transcript without speakers would be accepted and ignored.
import { UnprocessableRequest } from '../pipeline/pipeline-errors.js';
import { DEFAULT_MAX_SPEAKERS, MAX_SPEAKERS } from '../pipeline/speaker-attachment.js';

export interface SpeakerCount {
  minSpeakers: number;
  maxSpeakers: number;
}

export const DEFAULT_SPEAKER_COUNT: SpeakerCount = { minSpeakers: 1, maxSpeakers: DEFAULT_MAX_SPEAKERS };

/** `min_speakers` and `max_speakers` as sent (absent: undefined), checked against `diarize`. */
export function parseSpeakerCount(fields: { min_speakers?: unknown; max_speakers?: unknown }, diarize: boolean): SpeakerCount {
  const min = countField(fields.min_speakers, 'min_speakers');
  const max = countField(fields.max_speakers, 'max_speakers');
  if ((min !== undefined || max !== undefined) && !diarize) {
    throw new UnprocessableRequest(`${min !== undefined ? 'min_speakers' : 'max_speakers'} needs diarize=true`);
  }
  const count = { minSpeakers: min ?? DEFAULT_SPEAKER_COUNT.minSpeakers, maxSpeakers: max ?? DEFAULT_SPEAKER_COUNT.maxSpeakers };
  if (count.minSpeakers > count.maxSpeakers) throw new UnprocessableRequest('min_speakers must not be above max_speakers');
  return count;
}

/** A count as a JSON integer or a form field's digits; undefined when absent. */
function countField(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const count = typeof value === 'string' && /^\d{1,2}$/.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_SPEAKERS) {
    throw new UnprocessableRequest(`${name} must be an integer from 1 to ${MAX_SPEAKERS}`);
  }
  return count;
}
