// The contract suites' check that a store call is refused with a given error class and fields.
// Every store method is async, so a refusal is a rejected promise; one that throws synchronously
// counts too, so a store cannot pass by throwing where its callers `await`.
import type { Test } from 'tap';

/** Runs `call`; returns what it rejected or threw with, or undefined when it succeeded. */
export async function failureOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

export async function refuses(
  t: Test,
  call: () => Promise<unknown>,
  errorClass: abstract new (...args: never[]) => Error,
  fields: Record<string, unknown>,
  what: string,
): Promise<unknown> {
  const error = await failureOf(call);
  t.ok(error instanceof errorClass, `${what}: a ${errorClass.name}`);
  t.match(error, fields, what);
  return error;
}
