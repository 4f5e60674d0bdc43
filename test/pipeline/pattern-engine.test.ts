// The pattern language and its automaton (src/pipeline/patterns/): what it accepts matches as a
// regular expression does; what it refuses is refused with a position and never the pattern's text;
// and matching costs (units × instructions) whatever the pattern, counted in visited states.
import t from 'tap';

import { parsePatterns, splitPatterns } from '../../src/pipeline/patterns.js';
import { findMatches, linearBudget } from '../../src/pipeline/patterns/pattern-matcher.js';
import { compilePattern, compilePatterns, MAX_PROGRAM_SIZE, MAX_TOTAL_PROGRAM_SIZE } from '../../src/pipeline/patterns/pattern-program.js';
import { PatternRefused } from '../../src/pipeline/patterns/pattern-syntax.js';
import { UnprocessableRequest } from '../../src/pipeline/pipeline-errors.js';

const units = (s: string) => ({ units: Int32Array.from(Array.from(s), (c) => c.codePointAt(0)!) });
const run = (pattern: string, subject: string) => findMatches(compilePattern(pattern, 0), units(subject));
const texts = (pattern: string, subject: string) => run(pattern, subject).matches.map((m) => m.output);

/** Whether the whole subject matches: the same under every matching semantics, so JS RegExp is an oracle. */
function fullMatch(pattern: string, subject: string): boolean {
  return run(`^(?:${pattern})$`, subject).matches.length > 0;
}

t.test('whole-subject matching agrees with JavaScript RegExp on every supported construct', async (t) => {
  const patterns = [
    'a',
    'ab',
    'a|b',
    'a*b',
    '(a|b)+',
    'a?b?c',
    'a{2}',
    'a{1,3}b',
    'a{2,}',
    '(ab|a)(c|bcd)',
    '[abc]+',
    '[^a]+',
    '[a-c]{2}x?',
    '\\d+',
    '\\D+',
    '\\w+',
    '\\W',
    '\\s+',
    'a.c',
    '(?:a|bc)*d',
    '(a*)*b',
    '(a|ab)(c|bcd)(d*)',
    'x\\.y',
    '[.]+',
    'a\\-b',
    '(?:(?:a|b){1,2}c){2}',
    '[\\d-]+',
    '\\d{3}-\\d{4}',
  ];
  const alphabet = ['a', 'b', 'c', 'd', 'x', 'y', '1', '2', '-', '.', ' '];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let compared = 0;
  for (const pattern of patterns) {
    const oracle = new RegExp(`^(?:${pattern})$`);
    for (let i = 0; i < 150; i++) {
      const length = Math.floor(random() * 7);
      const subject = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      if (subject.trim() !== subject || subject === '') continue;
      const expected = oracle.test(subject);
      if (fullMatch(pattern, subject) !== expected) t.fail(`${pattern} on ${JSON.stringify(subject)}: expected ${expected}`);
      compared++;
    }
  }
  t.ok(compared > 2000, `${compared} comparisons`);
});

t.test('matches are leftmost-longest, non-overlapping, and start and end on word boundaries', async (t) => {
  t.same(texts('a|ab', 'ab'), ['ab'], 'the longest of two alternatives');
  t.same(texts('\\d+', 'take 12 then 345'), ['12', '345']);
  t.same(texts('\\d{3}', '12345 and 678'), ['678'], 'never a piece of a longer number');
  t.same(texts('mg', 'omg 5 mg'), ['mg']);
  t.same(texts('(?i)bp', 'BP and bp and Bp'), ['BP', 'bp', 'Bp'], '(?i) folds case');
  t.same(texts('bp', 'BP'), [], 'case-sensitive by default');
  t.same(texts('^\\d+', '12 34'), ['12'], '^ is the start of the text');
  t.same(texts('\\d+$', '12 34'), ['34'], '$ is the end of the text');
});

t.test('a catastrophic-backtracking pattern costs what any small pattern costs: linear in the text', async (t) => {
  const program = compilePattern('(a+)+$', 0);
  const short = findMatches(program, units(`${'a'.repeat(10_000)}b`));
  const long = findMatches(program, units(`${'a'.repeat(20_000)}b`));
  t.same(short.matches, [], 'no match: the text does not end in a');
  t.equal(short.exhausted, false, 'finished within the linear budget');
  t.ok(short.steps <= linearBudget(10_001, program) / 4, `${short.steps} states visited for 10,001 units and ${program.instructions.length} instructions`);
  t.ok(long.steps / short.steps < 2.01, `twice the text, twice the work (${long.steps} / ${short.steps})`);
  // The same shape with a match at the end.
  t.same(texts('(a+)+b', `${'a'.repeat(10_000)}b`), [`${'a'.repeat(10_000)}b`]);
  // Nested stars and alternations of the same letter.
  for (const pattern of ['(a*)*b', '(a|a)*b', '(a|aa)+c', '(?:a?){50}a{50}']) {
    const result = findMatches(compilePattern(pattern, 0), units('a'.repeat(5_000)));
    t.equal(result.exhausted, false, pattern);
    t.ok(result.steps <= 5_001 * (compilePattern(pattern, 0).instructions.length + 1), `${pattern}: ${result.steps} states`);
  }
});

t.test('the budget stops a search that would turn quadratic, and says so', async (t) => {
  // Each search finds "a" at once but follows the second branch to the end of the text before it
  // can tell "a" is the longest: restarting after every match would cost (units² × instructions).
  const program = compilePattern('a|a[ a]*b', 0);
  const result = findMatches(program, units(Array(400).fill('a').join(' ')), 2_000);
  t.equal(result.exhausted, true);
  t.ok(result.steps <= 2_001);
  t.ok(result.matches.length > 0 && result.matches.every((m) => m.output === 'a'), 'the matches found before it stand');
});

t.test('refusals name the problem and its position, never the pattern', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['zqx(', /not closed/],
    ['zqx)', /unbalanced closing parenthesis/],
    ['zqx+?', /lazy and possessive/],
    ['zqx++', /lazy and possessive/],
    ['zqx**', /quantifier follows a quantifier/],
    ['(zqx)\\1', /unsupported escape/],
    ['zqx\\b', /unsupported escape/],
    ['\\p{L}zqx', /unsupported escape/],
    ['(?=zqx)', /only \(\?: \) groups/],
    ['(?<n>zqx)', /only \(\?: \) groups/],
    ['zqx|', /matches empty text/],
    ['(zqx)?', /matches empty text/],
    ['^$', /matches empty text/],
    ['*zqx', /nothing to repeat/],
    ['zqx{2', /a brace must be a repetition/],
    ['zqx{101}', /above 100/],
    ['zqx{5,2}', /bounds reversed/],
    ['[zqx', /class is not closed/],
    ['[z-a]qx', /ends reversed/],
    ['[\\d-z]qx', /join two single characters/],
    ['zqx\\', /ends with a backslash/],
    ['^*zqx', /anchor cannot be repeated/],
    [`${'('.repeat(17)}zqx${')'.repeat(17)}`, /nest deeper than 16/],
    [`zqx${'y'.repeat(256)}`, /longer than 256/],
    ['(zqx{100}){100}', /more than 2000 instructions/],
  ];
  for (const [pattern, reason] of cases) {
    try {
      compilePattern(pattern, 2);
      t.fail(`${pattern} was accepted`);
    } catch (error) {
      t.type(error, PatternRefused, pattern);
      t.type(error, UnprocessableRequest, 'a 422 at the edge');
      const message = (error as Error).message;
      t.match(message, /^pattern 3: /, 'named by its place');
      t.match(message, reason, pattern);
      t.notOk(message.includes('zqx'), `the message does not echo the pattern: ${message}`);
    }
  }
  t.ok(MAX_PROGRAM_SIZE * 4 === MAX_TOTAL_PROGRAM_SIZE);
  t.throws(
    () =>
      compilePatterns(
        Array.from({ length: 5 }, () => 'a{100}b{100}c{100}d{100}e{100}f{100}g{100}h{100}i{100}j{100}k{100}l{100}m{100}n{100}o{100}p{100}q{100}r{100}s{100}'),
      ),
    /together compile to more than 8000/,
  );
});

t.test('the field: comma-separated, at most 32, commas inside groups, classes, braces or escaped kept', async (t) => {
  t.same(splitPatterns('BP \\d+/\\d+, MRN \\d{7},\\d{2,3}'), ['BP \\d+/\\d+', ' MRN \\d{7}', '\\d{2,3}']);
  t.same(splitPatterns('[,;]x,(a,b),a\\,b,[]a,]'), ['[,;]x', '(a,b)', 'a\\,b', '[]a,]']);
  t.same(parsePatterns(' '), []);
  t.same(parsePatterns(undefined), []);
  t.same(parsePatterns(Array.from({ length: 32 }, (_, i) => `p${i}`).join(',')).length, 32);
  t.throws(() => parsePatterns(Array.from({ length: 33 }, (_, i) => `p${i}`).join(',')), /at most 32 patterns/);
  t.throws(() => parsePatterns('a,,b'), /pattern 2 is empty/);
  t.throws(() => parsePatterns(`${'a'.repeat(2049)}`), /at most 2048 characters/);
  t.throws(() => parsePatterns('ok,(a+)+?'), /pattern 2: lazy/);
});
