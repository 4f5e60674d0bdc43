// The pattern language: a small regular-expression dialect with no construct that needs
// backtracking (no backreferences, no lookaround, no lazy or possessive quantifiers), parsed into a
// tree that pattern-program.ts compiles for the automaton in pattern-matcher.ts. PATTERNS.md is its
// reference. Errors say what is wrong and where (a character position), never what the pattern said.
import { UnprocessableRequest } from '../pipeline-errors.js';

/** Longest pattern, in characters. */
export const MAX_PATTERN_LENGTH = 256;
/** Largest bound of a counted repetition ({n}, {n,m}). */
export const MAX_REPEAT = 100;
/** Deepest nesting of groups. */
export const MAX_NESTING = 16;

export type CharClass = 'digit' | 'word' | 'space';

export type SetItem = { lo: number; hi: number } | { cls: CharClass; negated: boolean };

/** A set of characters: any of `items` (or, negated, none of them). */
export interface CharSet {
  items: SetItem[];
  negated: boolean;
  /** Case-insensitive (the pattern began with `(?i)`). */
  fold: boolean;
}

export type PatternNode =
  | { type: 'set'; set: CharSet }
  | { type: 'concat'; items: PatternNode[] }
  | { type: 'alt'; items: PatternNode[] }
  | { type: 'repeat'; node: PatternNode; min: number; max: number }
  | { type: 'assert'; kind: 'start' | 'end' };

export interface ParsedPattern {
  root: PatternNode;
  fold: boolean;
}

/** A pattern the language refuses; `index` is its place in the request's list (0-based). */
export class PatternRefused extends UnprocessableRequest {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(`pattern ${index + 1}: ${reason}`);
  }
}

const CLASS_ESCAPES: Readonly<Record<string, SetItem>> = {
  d: { cls: 'digit', negated: false },
  D: { cls: 'digit', negated: true },
  w: { cls: 'word', negated: false },
  W: { cls: 'word', negated: true },
  s: { cls: 'space', negated: false },
  S: { cls: 'space', negated: true },
};
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09 };

export function parsePattern(source: string, index: number): ParsedPattern {
  return new Parser(source, index).parse();
}

class Parser {
  private readonly chars: string[];
  private pos = 0;
  private depth = 0;
  private fold = false;

  constructor(
    source: string,
    private readonly index: number,
  ) {
    this.chars = Array.from(source);
    if (this.chars.length > MAX_PATTERN_LENGTH) this.fail(`longer than ${MAX_PATTERN_LENGTH} characters`, false);
  }

  parse(): ParsedPattern {
    if (this.chars.slice(0, 4).join('') === '(?i)') {
      this.fold = true;
      this.pos = 4;
    }
    const root = this.alternation();
    if (this.pos < this.chars.length) this.fail('unbalanced closing parenthesis');
    if (nullable(root)) this.fail('matches empty text; a pattern must match at least one character', false);
    return { root, fold: this.fold };
  }

  private fail(reason: string, at = true): never {
    throw new PatternRefused(this.index, at ? `${reason} at character ${this.pos + 1}` : reason);
  }

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  private alternation(): PatternNode {
    const items = [this.concatenation()];
    while (this.peek() === '|') {
      this.pos++;
      items.push(this.concatenation());
    }
    return items.length === 1 ? items[0] : { type: 'alt', items };
  }

  private concatenation(): PatternNode {
    const items: PatternNode[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) items.push(this.repetition());
    return items.length === 1 ? items[0] : { type: 'concat', items };
  }

  private repetition(): PatternNode {
    let node = this.atom();
    let quantified = false;
    for (let c = this.peek(); c === '*' || c === '+' || c === '?' || c === '{'; c = this.peek()) {
      if (quantified)
        this.fail(
          c === '?' || c === '+' ? 'lazy and possessive quantifiers are not supported (matches are leftmost-longest)' : 'a quantifier follows a quantifier',
        );
      const [min, max] = this.quantifier();
      if (node.type === 'assert') this.fail('an anchor cannot be repeated');
      node = { type: 'repeat', node, min, max };
      quantified = true;
    }
    return node;
  }

  private quantifier(): [number, number] {
    const c = this.chars[this.pos++];
    if (c === '*') return [0, Infinity];
    if (c === '+') return [1, Infinity];
    if (c === '?') return [0, 1];
    const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(this.chars.slice(this.pos - 1, this.pos + 11).join(''));
    if (!m) {
      this.pos--;
      this.fail('a brace must be a repetition {n}, {n,} or {n,m} (write \\{ for the character)');
    }
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) this.fail(`a repetition bound is above ${MAX_REPEAT}`);
    if (max < min) this.fail('a repetition has its bounds reversed');
    this.pos += m[0].length - 1;
    return [min, max];
  }

  private atom(): PatternNode {
    const c = this.chars[this.pos];
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { type: 'set', set: this.bracket() };
      case '.':
        this.pos++;
        return this.set([{ lo: 0x0a, hi: 0x0a }], true);
      case '^':
        this.pos++;
        return { type: 'assert', kind: 'start' };
      case '$':
        this.pos++;
        return { type: 'assert', kind: 'end' };
      case '\\': {
        this.pos++;
        return this.set([this.escape(false)], false);
      }
      case '*':
      case '+':
      case '?':
        return this.fail('a quantifier has nothing to repeat');
      case '{':
        return this.fail('a brace has nothing to repeat (write \\{ for the character)');
      case ']':
      case '}':
        return this.fail('an unescaped closing bracket or brace');
      default:
        this.pos++;
        return this.set([single(c.codePointAt(0)!)], false);
    }
  }

  private set(items: SetItem[], negated: boolean): PatternNode {
    return { type: 'set', set: { items, negated, fold: this.fold } };
  }

  private group(): PatternNode {
    this.pos++;
    if (this.peek() === '?') {
      if (this.chars[this.pos + 1] !== ':') this.fail('only (?: ) groups and a leading (?i) are supported');
      this.pos += 2;
    }
    if (++this.depth > MAX_NESTING) this.fail(`groups nest deeper than ${MAX_NESTING}`);
    const inner = this.alternation();
    if (this.peek() !== ')') this.fail('a group is not closed');
    this.pos++;
    this.depth--;
    return inner;
  }

  private bracket(): CharSet {
    this.pos++;
    const negated = this.peek() === '^';
    if (negated) this.pos++;
    const items: SetItem[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('a character class is not closed');
      if (c === ']' && !first) break;
      first = false;
      const lo = this.classMember();
      if (this.peek() === '-' && this.chars[this.pos + 1] !== undefined && this.chars[this.pos + 1] !== ']') {
        this.pos++;
        const hi = this.classMember();
        if (!('lo' in lo) || !('lo' in hi) || lo.lo !== lo.hi || hi.lo !== hi.hi) this.fail('a range must join two single characters');
        if (hi.lo < lo.lo) this.fail('a range has its ends reversed');
        items.push({ lo: lo.lo, hi: hi.lo });
      } else {
        items.push(lo);
      }
    }
    this.pos++;
    return { items, negated, fold: this.fold };
  }

  private classMember(): SetItem {
    const c = this.chars[this.pos++];
    if (c === '\\') return this.escape(true);
    if (c === '[') this.fail('nested classes are not supported (write \\[ for the character)');
    return single(c.codePointAt(0)!);
  }

  /** After a backslash: a class (\d \w \s and their negations), a control character, or a literal. */
  private escape(inClass: boolean): SetItem {
    const c = this.chars[this.pos];
    if (c === undefined) this.fail('a pattern ends with a backslash');
    this.pos++;
    if (c in CLASS_ESCAPES) return CLASS_ESCAPES[c];
    if (c in CONTROL_ESCAPES) return single(CONTROL_ESCAPES[c]);
    // Escaped letters and digits are reserved (backreferences, \b, \p{...}): refused, not guessed.
    if (/[\p{L}\p{N}]/u.test(c)) {
      this.pos--;
      this.fail(inClass ? 'an unsupported escape in a class' : 'an unsupported escape (backreferences, \\b and \\p are not part of the language)');
    }
    return single(c.codePointAt(0)!);
  }
}

function single(cp: number): SetItem {
  return { lo: cp, hi: cp };
}

/** Whether the node can match without consuming a character. */
export function nullable(node: PatternNode): boolean {
  switch (node.type) {
    case 'set':
      return false;
    case 'assert':
      return true;
    case 'concat':
      return node.items.every(nullable);
    case 'alt':
      return node.items.some(nullable);
    case 'repeat':
      return node.min === 0 || nullable(node.node);
  }
}
