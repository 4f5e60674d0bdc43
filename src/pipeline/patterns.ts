// Request-only structured-token patterns (contract rule 4, PATTERNS.md): comma-separated expressions
// of the pattern language (patterns/pattern-syntax.ts), at most 32 and 2,048 characters in all. A
// comma inside brackets, braces or parentheses, or escaped (\,), belongs to its pattern. Each is
// compiled here, within the compile limits, so a refused pattern is a 422 before any audio is read.
import { compilePatterns, type PatternProgram } from './patterns/pattern-program.js';
import { UnprocessableRequest } from './pipeline-errors.js';

export const MAX_PATTERNS = 32;
export const MAX_PATTERNS_LENGTH = 2048;

const unprocessable = (message: string) => new UnprocessableRequest(message);

/** The field's patterns, each checked to compile; [] for an absent or blank field. */
export function parsePatterns(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.length > MAX_PATTERNS_LENGTH) throw unprocessable(`patterns are at most ${MAX_PATTERNS_LENGTH} characters`);
  return checkPatterns(splitPatterns(raw).map((p) => p.trim()));
}

/** A list of patterns (the library's option, or the split field) within the count and compile limits. */
export function checkPatterns(patterns: string[]): string[] {
  if (patterns.length > MAX_PATTERNS) throw unprocessable(`at most ${MAX_PATTERNS} patterns are allowed`);
  const empty = patterns.findIndex((p) => p === '');
  if (empty >= 0) throw unprocessable(`pattern ${empty + 1} is empty`);
  compilePatterns(patterns);
  return patterns;
}

/** The programs of patterns `parsePatterns` accepted. */
export function patternPrograms(patterns: readonly string[]): PatternProgram[] {
  return compilePatterns(patterns);
}

/** Splits at the commas outside brackets, braces and parentheses that no backslash escapes. */
export function splitPatterns(raw: string): string[] {
  const parts: string[] = [];
  let current = '';
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) {
      current += c + raw[++i];
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      // A class's first member may be a literal `]` (after an optional `^`).
      let j = i + 1;
      if (raw[j] === '^') j++;
      if (raw[j] === ']') {
        current += raw.slice(i, j + 1);
        i = j;
        continue;
      }
    } else if (c === '(' || c === '{') {
      depth++;
    } else if ((c === ')' || c === '}') && depth > 0) {
      depth--;
    } else if (c === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}
