// A field name the client sent, as a refusal may show it: the name only (never a value), without
// control, format or bidirectional characters, and cut to a bound, so a hostile name can neither
// reorder nor flood the message it appears in.

/** The longest name shown; longer ones are cut and end in `…`. */
export const MAX_SHOWN_FIELD_NAME = 40;

// Unicode's "other" characters: controls, format characters (bidirectional controls, zero widths),
// surrogates, private use and unassigned code points.
const UNSHOWN = /\p{C}/gu;

/** `name` quoted for a message, e.g. `"languag"`; `(unprintable)` when nothing showable is left. */
export function shownFieldName(name: string): string {
  const showable = [...name.replace(UNSHOWN, '')];
  if (showable.length === 0) return '(unprintable)';
  const cut = showable.length > MAX_SHOWN_FIELD_NAME ? `${showable.slice(0, MAX_SHOWN_FIELD_NAME).join('')}…` : showable.join('');
  return JSON.stringify(cut);
}

/** The refusal of a field the route does not take: names it and lists those it takes. */
export function unknownFieldMessage(name: string, known: readonly string[], where = 'the request'): string {
  return `${where} has a field ${shownFieldName(name)} that is not one of: ${known.join(', ')}`;
}
