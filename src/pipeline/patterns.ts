// Request-only structured-token patterns: comma-separated expressions, at most 32 (at most 2,048
// characters in all). Each must compile as a regular expression; applying them is the patterns
// feature's work, here they are only validated.
import { UnprocessableRequest } from './pipeline-errors.js';

export const MAX_PATTERNS = 32;
export const MAX_PATTERNS_LENGTH = 2048;

const unprocessable = (message: string) => new UnprocessableRequest(message);

export function parsePatterns(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.length > MAX_PATTERNS_LENGTH) throw unprocessable(`patterns are at most ${MAX_PATTERNS_LENGTH} characters`);
  const patterns = raw.split(',').map((p) => p.trim());
  if (patterns.length > MAX_PATTERNS) throw unprocessable(`at most ${MAX_PATTERNS} patterns are allowed`);
  for (const pattern of patterns) {
    if (pattern === '') throw unprocessable('patterns must not be empty');
    try {
      new RegExp(pattern, 'u');
    } catch {
      throw unprocessable('a pattern is not a valid expression');
    }
  }
  return patterns;
}
