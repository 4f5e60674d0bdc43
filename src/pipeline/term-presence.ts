// Whether a transcript contains a vocabulary term: case-insensitively, as whole words (a term is not
// found inside a longer word), accents as written.

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function containsTerm(text: string, term: string): boolean {
  // The expression is built from an escaped literal: no quantifier of the caller's reaches the engine.
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(term)}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}

/** Where the term occurs in `text`, as whole words: [from, to) character offsets. */
export function termSpans(text: string, term: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of text.matchAll(new RegExp(`(?<=^|[^\\p{L}\\p{N}])${escapeRegExp(term)}(?=$|[^\\p{L}\\p{N}])`, 'giu'))) {
    spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}
