// The OpenAPI document's own builders; the JSON Schema ones are the contract's (contract/json-schema.ts).
import type { Reference } from './openapi-types.js';

export { anyCase, boolean, integer, LANGUAGE_TAG_PATTERN, number, string, stringArray } from '../contract/json-schema.js';

export const ref = (name: string): Reference => ({ $ref: `#/components/schemas/${name}` });

export const AUDIO_FORMATS = 'WAV, MP3, M4A/MP4, WebM, OGG, FLAC or AAC';
