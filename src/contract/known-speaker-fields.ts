// OpenAI's known speakers on the direct route: `known_speaker_names[]` and `known_speaker_references[]`
// (or the same names without `[]`, each a JSON array), paired by position, and this service's
// `known_speakers[]`: ids of the tenant's enrolled voices (POST /v1/voices); up to four in all. A reference is
// a data URL of audio (`data:audio/wav;base64,...`); its bytes decide its format, as a file's do, and
// whether it is usable (2 to 10 s of one voice) is checked when it is decoded (src/application/
// known-speaker-references.ts). Both need diarize=true: names for a transcript without speakers would
// be accepted and ignored. A name must not be what an anonymous label looks like (one capital letter)
// or the label of unattributed passages, so a name never reads as another voice.
import { hasRefusedCharacter } from '../domain/refused-characters.js';
import { InvalidRequestField, UnprocessableRequest } from '../pipeline/pipeline-errors.js';
import { UNATTRIBUTED_SPEAKER } from '../pipeline/speaker-attachment.js';

/** OpenAI's limit on known speakers per request. */
export const MAX_KNOWN_SPEAKERS = 4;
export const MAX_KNOWN_SPEAKER_NAME_LENGTH = 64;
export const KNOWN_SPEAKER_FIELDS = [
  'known_speaker_names',
  'known_speaker_names[]',
  'known_speaker_references',
  'known_speaker_references[]',
  'known_speakers',
  'known_speakers[]',
] as const;

/** A name and the audio bytes of its reference clip, not yet decoded. */
export interface KnownSpeakerReference {
  name: string;
  clip: Buffer;
}

const unprocessable = (message: string) => new UnprocessableRequest(message);

/** The request's known speakers: named clips, and the ids of enrolled voices (POST /v1/voices), resolved later. */
export interface KnownSpeakerFields {
  references: KnownSpeakerReference[];
  enrolledVoiceIds: string[];
}

export function parseKnownSpeakerFields(fields: Record<string, string | undefined>, diarize: boolean): KnownSpeakerFields {
  const names = arrayField(fields, 'known_speaker_names');
  const references = arrayField(fields, 'known_speaker_references');
  const ids = arrayField(fields, 'known_speakers');
  if (names === null && references === null && ids === null) return { references: [], enrolledVoiceIds: [] };
  if (!diarize) throw unprocessable('known_speaker_names, known_speaker_references and known_speakers need diarize=true');
  if ((names ?? []).length !== (references ?? []).length) {
    throw unprocessable('known_speaker_names and known_speaker_references must pair one to one: one reference per name, in the same order');
  }
  const count = (names ?? []).length + (ids ?? []).length;
  if (count < 1 || count > MAX_KNOWN_SPEAKERS) {
    throw unprocessable(`known speakers (known_speaker_names with known_speakers) must be 1 to ${MAX_KNOWN_SPEAKERS}`);
  }
  const seen = new Set<string>();
  const named = (names ?? []).map((raw, i) => {
    const name = knownSpeakerName(raw, `known_speaker_names[${i}]`);
    if (seen.has(name)) throw unprocessable('known_speaker_names must not repeat a name');
    seen.add(name);
    return { name, clip: dataUrlBytes(references![i], `known_speaker_references[${i}]`) };
  });
  return { references: named, enrolledVoiceIds: enrolledVoiceIdsOf(ids ?? []) };
}

/** `known_speakers` of a job creation (a JSON array of enrolled voices' ids, with diarize), checked as the direct route's. */
export function parseJobKnownSpeakers(value: unknown, diarize: boolean): string[] {
  if (value === undefined || value === null) return [];
  if (!diarize) throw unprocessable('known_speakers needs diarize=true');
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_KNOWN_SPEAKERS) {
    throw unprocessable(`known_speakers must be an array of 1 to ${MAX_KNOWN_SPEAKERS} ids of enrolled voices`);
  }
  return enrolledVoiceIdsOf(value);
}

function enrolledVoiceIdsOf(ids: unknown[]): string[] {
  const checked = ids.map((id, i) => {
    if (typeof id !== 'string' || id === '') throw unprocessable(`known_speakers[${i}] must be the id of an enrolled voice`);
    return id;
  });
  if (new Set(checked).size !== checked.length) throw unprocessable('known_speakers must not repeat a voice');
  return checked;
}

/** A speaker's name as a label: trimmed, 1 to 64 characters, no control characters, not a letter label nor `unknown`. */
export function knownSpeakerName(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw unprocessable(`${field} must be a string`);
  const name = raw.trim();
  if (name.length < 1 || [...name].length > MAX_KNOWN_SPEAKER_NAME_LENGTH) {
    throw unprocessable(`${field} must be 1 to ${MAX_KNOWN_SPEAKER_NAME_LENGTH} characters`);
  }
  if (hasRefusedCharacter(name)) throw unprocessable(`${field} must not contain control or bidirectional characters`);
  if (/^[A-Z]$/.test(name) || name === UNATTRIBUTED_SPEAKER) {
    throw unprocessable(`${field} must not be a single capital letter or "${UNATTRIBUTED_SPEAKER}": those are the labels of voices without a name`);
  }
  return name;
}

/** The values of `name[]` (repeated, kept as a JSON array by the upload) or of `name` (a JSON array); null when absent. */
function arrayField(fields: Record<string, string | undefined>, name: string): unknown[] | null {
  const bracketed = fields[`${name}[]`];
  const plain = fields[name];
  if (bracketed !== undefined && plain !== undefined) throw new InvalidRequestField(`send ${name}[] or ${name}, not both`);
  const raw = bracketed ?? plain;
  if (raw === undefined || raw === '') return null;
  let values: unknown = null;
  try {
    values = JSON.parse(raw);
  } catch {
    // Refused below, as any value that is not an array.
  }
  if (!Array.isArray(values)) throw unprocessable(`${name} must be an array (send ${name}[] once per value)`);
  return values;
}

/** The bytes of a base64 data URL of audio (the media type is not trusted: the bytes are sniffed when decoded). */
function dataUrlBytes(raw: unknown, field: string): Buffer {
  const match = typeof raw === 'string' ? /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?((?:;[a-z0-9=._+-]+)*);base64,([A-Za-z0-9+/]*={0,2})$/i.exec(raw.trim()) : null;
  if (!match) throw unprocessable(`${field} must be a base64 data URL of audio (data:audio/wav;base64,...)`);
  const bytes = Buffer.from(match[3], 'base64');
  if (bytes.length === 0) throw unprocessable(`${field} holds no audio`);
  return bytes;
}
