// The shape of every layer's refusal catalogue: an error that says what went wrong as one `kind` of a
// closed union, so the API's mapping (src/api/error-mapping.ts) can be a table typed over every kind
// and a new kind cannot go unmapped. Each layer declares its own union and subclasses; this is the
// part they share.

export abstract class KindedError<Kind extends string> extends Error {
  abstract readonly kind: Kind;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // The subclass's name (`JobNotFound`), in logs and stack traces.
    this.name = new.target.name;
  }
}
