// A field name the client sent, as a refusal may show it. A name shaped like the API's own field names
// (lower-case snake case, at most 40 characters, `[]` for an array part) is a client's slip worth naming
// back ("languag"). Any other name may be content a client put where a name goes (a canary, a control
// character, a megabyte), and messages never quote request content: such a name is described, not shown.

const FIELD_NAME_SHAPE = /^[a-z][a-z0-9_]{0,39}(\[\])?$/;

/** The refusal of a field the route does not take: names it when it is shaped like a field name, and lists those it takes. */
export function unknownFieldMessage(name: string, known: readonly string[], where = 'the request'): string {
  const which = FIELD_NAME_SHAPE.test(name) ? `a field ${JSON.stringify(name)}` : 'a field whose name is not a field name';
  return `${where} has ${which} that is not one of: ${known.join(', ')}`;
}
