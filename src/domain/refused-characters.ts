// Characters refused in the text a client gives the decoder and the transcript's corrections
// (vocabulary terms, stored dictionary terms, the prompt): the C0 controls and DEL, and Unicode's
// bidirectional controls (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI, LRM, RLM, ALM), which are
// invisible and could reorder how a clinical transcript reads on screen.

// Control characters are exactly what this matches.
// eslint-disable-next-line no-control-regex
const REFUSED = /[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Tab, line feed and carriage return: ordinary in a prompt's prose. */
const LINE_SPACING = /[\t\n\r]/g;

/** Whether `text` holds a refused character; `allowLineSpacing` lets tabs and line breaks through. */
export function hasRefusedCharacter(text: string, allowLineSpacing = false): boolean {
  return REFUSED.test(allowLineSpacing ? text.replace(LINE_SPACING, '') : text);
}
