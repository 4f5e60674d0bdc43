// How many times a header was sent. Node's parser keeps only the first of some duplicated headers
// (Authorization among them) and joins others with ", " (Idempotency-Key), so `request.headers`
// cannot tell a repeated header from a single one; the raw list still can.

/** Occurrences of `name` (any case) in Node's `rawHeaders` ([name, value, name, value, ...]). */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  const wanted = name.toLowerCase();
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === wanted) count += 1;
  return count;
}
