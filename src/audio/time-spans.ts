// Spans of a recording in seconds, padded and merged: what a redacted copy silences
// (muted-wav.ts). Padding covers word times that are estimates; merging keeps the spans few and
// in order, so the copy is written in one pass over the samples.

export interface TimeSpan {
  start: number;
  end: number;
}

/** Each span widened by `padSeconds` on both sides (not before 0), sorted, overlapping or touching ones merged. */
export function padAndMergeSpans(spans: readonly TimeSpan[], padSeconds: number): TimeSpan[] {
  const padded = spans
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end >= s.start)
    .map((s) => ({ start: Math.max(0, s.start - padSeconds), end: s.end + padSeconds }))
    .sort((a, b) => a.start - b.start);
  const merged: TimeSpan[] = [];
  for (const span of padded) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}
