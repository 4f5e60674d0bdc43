// The automaton: a Pike VM (Thompson NFA simulation, as in RE2) over a reading of the transcript
// (token-reading.ts). Every thread advances in lock step, one input unit at a time, and two threads
// at the same instruction are merged (the one that started first survives), so one search visits at
// most (units × instructions) states: linear in the text whatever the pattern. `(a+)+$` on 10,000
// a's and a b costs the same as any other 5-instruction pattern.
//
// Semantics: leftmost-longest (POSIX), non-overlapping, left to right. A match starts and ends where
// a word does (never inside a run of letters and digits, nor inside one read item such as "98.6"). A reading's soft gaps (the space around a
// spoken number, a spelled letter or a spoken symbol) are the only place a match may differ from the
// text: a gap is dropped ("b p" → "BP"), or kept as a space or hyphen where the pattern has one; a
// gap between two numbers is never dropped, so two numbers never run together into a third.
//
// After a match, the search resumes at its end; the states it re-visits are counted against a
// budget (4 × units × instructions per pattern and text, the linear bound with room to spare) and a
// search that would pass it stops, reported as `exhausted`, rather than taking quadratic time.
import type { Instruction, PatternProgram } from './pattern-program.js';
import type { CharSet, SetItem } from './pattern-syntax.js';

/** A gap that may be dropped, kept as a space, or written as a hyphen. */
export const SOFT_JOINABLE = -1;
/** A gap between two numbers: kept, as a space or a hyphen, never dropped. */
export const SOFT_SEPARATING = -2;

export interface PatternMatch {
  /** Units [start, end) of the subject. */
  start: number;
  end: number;
  /** The matched units with each soft gap as the pattern took it (dropped, space or hyphen). */
  output: string;
}

export interface MatchResult {
  matches: PatternMatch[];
  /** States visited: the measure of work, bounded by `budget`. */
  steps: number;
  /** The budget stopped the search before the end of the subject. */
  exhausted: boolean;
}

interface Edit {
  at: number;
  out: string;
  prev: Edit | null;
}

interface Thread {
  pc: number;
  start: number;
  edits: Edit | null;
}

const SPACE = 0x20;
const HYPHEN = 0x2d;
const WORD = /[\p{L}\p{N}_]/u;
const ALNUM = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s/u;

export function linearBudget(units: number, program: PatternProgram): number {
  return 4 * (units + 1) * (program.instructions.length + 1);
}

/** What a pattern searches: units, and where a match may not start or end (1 at i: not between i-1 and i). */
export interface Subject {
  units: Int32Array;
  unbreakable?: Uint8Array;
}

export function findMatches(program: PatternProgram, subject: Subject, budget = linearBudget(subject.units.length, program)): MatchResult {
  return new Search(program.instructions, subject.units, subject.unbreakable ?? null, budget).all();
}

class Search {
  private readonly n: number;
  private readonly alnum: Uint8Array;
  /** For each instruction, the generation of the list it was last added to (deduplication). */
  private readonly seen: Int32Array;
  private generation = 0;
  steps = 0;

  constructor(
    private readonly prog: Instruction[],
    private readonly units: Int32Array,
    private readonly unbreakable: Uint8Array | null,
    private readonly budget: number,
  ) {
    this.n = units.length;
    this.alnum = Uint8Array.from(units, (u) => (u >= 0 && ALNUM.test(String.fromCodePoint(u)) ? 1 : 0));
    this.seen = new Int32Array(prog.length).fill(-1);
  }

  all(): MatchResult {
    const matches: PatternMatch[] = [];
    let from = 0;
    let exhausted = false;
    while (from < this.n) {
      const found = this.searchFrom(from);
      if (found === 'exhausted') {
        exhausted = true;
        break;
      }
      if (found === null) break;
      matches.push(found);
      from = found.end;
    }
    return { matches, steps: this.steps, exhausted };
  }

  private boundary(i: number): boolean {
    if (i <= 0 || i >= this.n) return true;
    return !(this.alnum[i - 1] === 1 && this.alnum[i] === 1) && this.unbreakable?.[i] !== 1;
  }

  private canStart(i: number): boolean {
    return i < this.n && this.units[i] >= 0 && this.boundary(i);
  }

  /** The leftmost-longest match starting at or after `from`. */
  private searchFrom(from: number): PatternMatch | null | 'exhausted' {
    let current: Thread[] = [];
    let currentGeneration = ++this.generation;
    let best: Thread | null = null;
    let bestEnd = -1;
    for (let i = from; i <= this.n; i++) {
      if (best === null && this.canStart(i)) this.add(current, currentGeneration, { pc: 0, start: i, edits: null }, i);
      if (current.length === 0) {
        if (best !== null) break;
        continue;
      }
      const next: Thread[] = [];
      const nextGeneration = ++this.generation;
      for (const t of current) {
        if (++this.steps > this.budget) return 'exhausted';
        // Threads are in order of start: once a match is known, later starts cannot beat it.
        if (best !== null && t.start > best.start) break;
        const inst = this.prog[t.pc];
        if (inst.op === 'match') {
          if (i > t.start && this.boundary(i) && (best === null || t.start < best.start || i > bestEnd)) {
            best = t;
            bestEnd = i;
          }
          continue;
        }
        if (inst.op !== 'char' || i >= this.n) continue;
        const u = this.units[i];
        if (u >= 0) {
          if (inSet(inst.set, u)) this.add(next, nextGeneration, { pc: t.pc + 1, start: t.start, edits: t.edits }, i + 1);
          continue;
        }
        const out = inSet(inst.set, SPACE) ? ' ' : inSet(inst.set, HYPHEN) ? '-' : null;
        if (out !== null) this.add(next, nextGeneration, { pc: t.pc + 1, start: t.start, edits: { at: i, out, prev: t.edits } }, i + 1);
        if (u === SOFT_JOINABLE) this.add(next, nextGeneration, { pc: t.pc, start: t.start, edits: { at: i, out: '', prev: t.edits } }, i + 1);
      }
      current = next;
      currentGeneration = nextGeneration;
    }
    return best === null ? null : { start: best.start, end: bestEnd, output: this.output(best.start, bestEnd, best.edits) };
  }

  /** Adds a thread and everything it reaches without consuming input, in priority order. */
  private add(list: Thread[], generation: number, thread: Thread, i: number): void {
    const stack = [thread.pc];
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (this.seen[pc] === generation) continue;
      this.seen[pc] = generation;
      const inst = this.prog[pc];
      switch (inst.op) {
        case 'jmp':
          stack.push(inst.x);
          break;
        case 'split':
          stack.push(inst.y, inst.x);
          break;
        case 'assert':
          if (inst.kind === 'start' ? i === 0 : i === this.n) stack.push(pc + 1);
          break;
        default:
          list.push({ pc, start: thread.start, edits: thread.edits });
      }
    }
  }

  private output(start: number, end: number, edits: Edit | null): string {
    const taken = new Map<number, string>();
    for (let e = edits; e !== null; e = e.prev) taken.set(e.at, e.out);
    let out = '';
    for (let k = start; k < end; k++) out += this.units[k] >= 0 ? String.fromCodePoint(this.units[k]) : (taken.get(k) ?? ' ');
    return out;
  }
}

function inSet(set: CharSet, cp: number): boolean {
  let hit = set.items.some((item) => inItem(item, cp));
  if (!hit && set.fold) {
    const ch = String.fromCodePoint(cp);
    for (const variant of [ch.toLowerCase(), ch.toUpperCase()]) {
      const v = variant.codePointAt(0)!;
      if (variant.length === ch.length && v !== cp && set.items.some((item) => inItem(item, v))) hit = true;
    }
  }
  return hit !== set.negated;
}

function inItem(item: SetItem, cp: number): boolean {
  if ('lo' in item) return cp >= item.lo && cp <= item.hi;
  const ch = String.fromCodePoint(cp);
  const hit = item.cls === 'digit' ? cp >= 0x30 && cp <= 0x39 : item.cls === 'word' ? WORD.test(ch) : WHITESPACE.test(ch);
  return hit !== item.negated;
}
