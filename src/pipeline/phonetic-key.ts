// A phonetic key for Latin-script words: two spellings that sound alike get the same key, so a term
// can be recognised in a transcript that spelt it differently ("metoprolol" / "metoprolal",
// "hydrochlorothiazide" / "hydro chloro thiazide"). The method, in order, on the lower-cased letters
// of the whole phrase (spaces, hyphens and digits dropped; accents folded):
//   1. letter groups that spell one sound become that sound: ph→f, gh→g, ck→k, qu→kw, q→k, x→ks,
//      wr→r, kn/gn/pn at the start→n, ps at the start→s, mb at the end→m, sch→sk, sh→x, ch→x,
//      th→0 (theta), dg→j;
//   2. c before e, i or y is s, otherwise k; g before e, i or y is j; z is s; v is f; y is a vowel;
//   3. vowels are kept only as the first letter (as a single "a"), then dropped;
//   4. repeated letters collapse to one.
// It is deliberately coarse (a Metaphone-like skeleton of consonants); the edit distance over the
// surface spelling is the second opinion wherever a decision is made (term-retrieval.ts,
// term-corrections.ts). Scripts other than Latin keep their letters (lower-cased, repeats collapsed).

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y']);

export function phoneticKey(text: string): string {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}]/gu, '');
  if (folded === '') return '';
  if (/[^a-z]/.test(folded)) return collapse(folded);
  let s = folded
    .replace(/^(kn|gn|pn)/, 'n')
    .replace(/^ps/, 's')
    .replace(/^wr/, 'r')
    .replace(/mb$/, 'm')
    .replace(/sch/g, 'sk')
    .replace(/ph/g, 'f')
    .replace(/gh/g, 'g')
    .replace(/ck/g, 'k')
    .replace(/dg/g, 'j')
    .replace(/qu/g, 'kw')
    .replace(/q/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/sh/g, 'X')
    .replace(/ch/g, 'X')
    .replace(/th/g, '0')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c/g, 'k')
    .replace(/g(?=[eiy])/g, 'j')
    .replace(/z/g, 's')
    .replace(/v/g, 'f');
  const first = VOWELS.has(s[0]) ? 'a' : s[0];
  s = first + [...s.slice(1)].filter((c) => !VOWELS.has(c)).join('');
  return collapse(s);
}

function collapse(s: string): string {
  let out = '';
  for (const c of s) if (out[out.length - 1] !== c) out += c;
  return out;
}
