// Email addresses, URLs and IP addresses: written ("jane.doe@example.com", "www.clinic.org/portal",
// "192.168.1.20") or spoken ("jane dot doe at gmail dot com", "w w w dot clinic dot org"). Their shapes
// are language-independent; the spoken "at" and "dot" words are given for each family.
import { type Candidate, CERTAINTY } from './redaction-spans.js';
import type { TextAnalysis } from './text-analysis.js';

const AT_WORDS = ['at', 'arroba', 'arobase', 'at-zeichen', 'apenstaartje', 'ات', 'एट'];
const DOT_WORDS = ['dot', 'punto', 'point', 'punkt', 'ponto', 'punt', 'دوت', 'नुक्ता', 'डॉट'];
const TLDS = 'com|org|net|edu|gov|mil|int|info|biz|io|co|us|uk|ca|au|de|fr|es|pt|br|nl|be|ch|at|it|in|mx|ar|ae|sa|eg|ma|health|care|clinic|app|dev|me';

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const URL = new RegExp(String.raw`\b(?:https?://|www\.)[^\s<>"']+|\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:${TLDS})(?:/[^\s<>"']*)?(?![\p{L}\p{N}])`, 'giu');
const IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.]\d)/g;
const IPV6 = /(?<![\p{L}\p{N}:])(?:[0-9a-f]{1,4}:){2,7}(?::|(?::[0-9a-f]{1,4}){1,6}|[0-9a-f]{1,4})(?![\p{L}\p{N}:])/giu;

const word = String.raw`[\p{L}\p{N}]+`;
const dot = `\\s+(?:${DOT_WORDS.join('|')})\\s+`;
const localPart = String.raw`${word}(?:(?:${dot}|\s+(?:underscore|dash|hyphen)\s+)${word}){0,3}`;
const domain = String.raw`${word}(?:${dot}${word}){0,2}${dot}(?:${TLDS})`;
const SPOKEN_EMAIL = new RegExp(String.raw`(?<![\p{L}\p{N}])${localPart}\s+(?:${AT_WORDS.join('|')})\s+${domain}(?![\p{L}\p{N}])`, 'giu');
const SPOKEN_URL = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:w\s*w\s*w|www)${dot}${word}(?:${dot}${word}){0,2}${dot}(?:${TLDS})(?![\p{L}\p{N}])`, 'giu');

/** A written number with a decimal point ("98.6", "2.5") is not a domain; a trailing sentence dot is not part of a URL. */
function trimUrl(text: string, start: number, end: number): number {
  while (end > start && /[.,;:!?)]/.test(text[end - 1])) end--;
  return end;
}

export function detectContact({ text }: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  const add = (type: Candidate['type'], start: number, end: number) => out.push({ type, start, end, certainty: CERTAINTY.shape });
  for (const m of text.matchAll(EMAIL)) add('email_address', m.index, trimUrl(text, m.index, m.index + m[0].length));
  for (const m of text.matchAll(SPOKEN_EMAIL)) add('email_address', m.index, m.index + m[0].length);
  for (const m of text.matchAll(URL)) {
    if (text[m.index - 1] === '@' || /^\d+(?:\.\d+)+$/.test(m[0])) continue;
    add('url', m.index, trimUrl(text, m.index, m.index + m[0].length));
  }
  for (const m of text.matchAll(SPOKEN_URL)) add('url', m.index, m.index + m[0].length);
  for (const m of text.matchAll(IPV4)) add('ip_address', m.index, m.index + m[0].length);
  for (const m of text.matchAll(IPV6)) if (/\d/.test(m[0]) && m[0].split(':').length >= 4) add('ip_address', m.index, m.index + m[0].length);
  return out;
}
