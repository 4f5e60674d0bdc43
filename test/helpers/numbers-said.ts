// The numbers a transcript says, in order, however it writes them ("one twenty" and "120" alike): the
// digit runs of its reading (src/pipeline/token-reading.ts). Patterns must leave this list unchanged.
import { readText } from '../../src/pipeline/token-reading.js';

export function numbersSaid(text: string): string[] {
  return Array.from(readText(text).units, (u) => (u >= 0x30 && u <= 0x39 ? String.fromCodePoint(u) : ' '))
    .join('')
    .split(' ')
    .filter((d) => d !== '');
}
