// Compiles a parsed pattern into a program for the automaton (Thompson's construction, as in RE2 and
// Pike's VM): character tests, splits, jumps, anchors and a final match. Counted repetitions are
// unrolled, so the program's size is what bounds matching time; it is capped per pattern and per
// request, and compiling stops as soon as a cap is passed (the compile-time limit), so a pathological
// pattern is refused in microseconds and never reaches a transcript.
import { type CharSet, parsePattern, type PatternNode, PatternRefused } from './pattern-syntax.js';

/** Most instructions in one pattern's program. */
export const MAX_PROGRAM_SIZE = 2_000;
/** Most instructions over all of a request's patterns. */
export const MAX_TOTAL_PROGRAM_SIZE = 8_000;

export type Instruction =
  { op: 'char'; set: CharSet } | { op: 'split'; x: number; y: number } | { op: 'jmp'; x: number } | { op: 'assert'; kind: 'start' | 'end' } | { op: 'match' };

export interface PatternProgram {
  /** The pattern's place in the request's list (0-based). */
  index: number;
  instructions: Instruction[];
}

export function compilePattern(source: string, index: number, budget = MAX_PROGRAM_SIZE): PatternProgram {
  const { root } = parsePattern(source, index);
  const emitter = new Emitter(index, Math.min(budget, MAX_PROGRAM_SIZE));
  emitter.node(root);
  emitter.push({ op: 'match' });
  return { index, instructions: emitter.program };
}

/** Every pattern of a request, within the request-wide size cap. */
export function compilePatterns(sources: readonly string[]): PatternProgram[] {
  let left = MAX_TOTAL_PROGRAM_SIZE;
  return sources.map((source, index) => {
    const program = compilePattern(source, index, left);
    left -= program.instructions.length;
    return program;
  });
}

class Emitter {
  readonly program: Instruction[] = [];

  constructor(
    private readonly index: number,
    private readonly cap: number,
  ) {}

  push(instruction: Instruction): number {
    if (this.program.length >= this.cap) {
      throw new PatternRefused(
        this.index,
        this.cap < MAX_PROGRAM_SIZE
          ? `the patterns together compile to more than ${MAX_TOTAL_PROGRAM_SIZE} instructions`
          : `compiles to more than ${MAX_PROGRAM_SIZE} instructions (large counted repetitions multiply)`,
      );
    }
    this.program.push(instruction);
    return this.program.length - 1;
  }

  private patchSplit(at: number, x: number, y: number): void {
    this.program[at] = { op: 'split', x, y };
  }

  node(node: PatternNode): void {
    switch (node.type) {
      case 'set':
        this.push({ op: 'char', set: node.set });
        return;
      case 'assert':
        this.push({ op: 'assert', kind: node.kind });
        return;
      case 'concat':
        for (const item of node.items) this.node(item);
        return;
      case 'alt':
        return this.alternation(node.items);
      case 'repeat':
        return this.repeat(node.node, node.min, node.max);
    }
  }

  private alternation(items: PatternNode[]): void {
    const jumps: number[] = [];
    for (let i = 0; i < items.length - 1; i++) {
      const split = this.push({ op: 'jmp', x: -1 });
      this.node(items[i]);
      jumps.push(this.push({ op: 'jmp', x: -1 }));
      this.patchSplit(split, split + 1, this.program.length);
    }
    this.node(items[items.length - 1]);
    for (const j of jumps) this.program[j] = { op: 'jmp', x: this.program.length };
  }

  private repeat(body: PatternNode, min: number, max: number): void {
    for (let i = 0; i < min; i++) this.node(body);
    if (max === Infinity) {
      // x*: L: split body, out; body; jmp L
      const split = this.push({ op: 'jmp', x: -1 });
      this.node(body);
      this.push({ op: 'jmp', x: split });
      this.patchSplit(split, split + 1, this.program.length);
      return;
    }
    // x{0,k} as nested options: split body, out; body; split body, out; ... each skipping to the end.
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      splits.push(this.push({ op: 'jmp', x: -1 }));
      this.node(body);
    }
    for (const s of splits) this.patchSplit(s, s + 1, this.program.length);
  }
}
