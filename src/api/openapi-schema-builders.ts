// The small builders the contract's schemas are written with, and the patterns several of them share.
import { LANGUAGE_REGION_SYNTAX } from '../domain/language-families.js';
import type { Reference, Schema } from './openapi-types.js';
import { LANGUAGE_FAMILIES } from '../domain/language-families.js';

export const ref = (name: string): Reference => ({ $ref: `#/components/schemas/${name}` });

export const AUDIO_FORMATS = 'WAV, MP3, M4A/MP4, WebM, OGG, FLAC or AAC';
/** `en` -> `[eE][nN]`: tags are read in any case (languages.ts), and JSON Schema patterns have no flags. */
export const anyCase = (text: string) => [...text].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');
export const LANGUAGE_TAG_PATTERN = `^(auto|(${LANGUAGE_FAMILIES.map(anyCase).join('|')})(-(${LANGUAGE_REGION_SYNTAX}))?)$`;
export const string = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const integer = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const number = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const boolean = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const stringArray = (extra: Schema = {}): Schema => ({ type: 'array', items: string(), ...extra });
