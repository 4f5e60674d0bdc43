// Random identifiers in base62 (letters and digits only), so they survive URLs, shells and
// double-click selection, and never contain the `_` that separates the parts of an API key.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 248 = 4 * 62: bytes at or above it are rejected so every character is equally likely.
const UNBIASED_LIMIT = 248;

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const BASE62 = /^[0-9A-Za-z]+$/;
