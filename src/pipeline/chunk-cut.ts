// Where a long recording's chunk ends: in the longest pause near the target length, never inside
// speech, so no word is cut in two and no word is decoded twice (the next chunk starts at the cut).
import type { SpeechRegion } from './speech-regions.js';

/** How far either side of the target length a cut may move to find a pause: 10 % of it, at most 30 s. */
export const CUT_SEARCH_SECONDS = 30;
const CUT_SEARCH_FRACTION = 0.1;

export function cutSearchSeconds(target: number): number {
  return Math.min(CUT_SEARCH_SECONDS, target * CUT_SEARCH_FRACTION);
}

/**
 * The cut, in seconds from the window's start. `regions` are the speech found in the decoded window
 * (`windowSeconds` long, starting at the chunk's start, at least target + cutSearchSeconds(target)
 * unless it ends the recording); `target` is the chunk length asked for.
 * `lastWindow`: the window holds the rest of the recording, so everything is taken.
 */
export function chooseCut(regions: readonly SpeechRegion[], windowSeconds: number, target: number, lastWindow: boolean): number {
  if (lastWindow || windowSeconds <= target) return windowSeconds;
  const search = cutSearchSeconds(target);
  const low = Math.max(0, target - search);
  const high = Math.min(windowSeconds, target + search);
  // Pauses: before the first region, between regions (a zero-length one where the VAD split a long
  // stretch of speech at its quietest point), and after the last region when it ends before `high`
  // (speech after the window's end would start at the earliest at `windowSeconds`).
  const pauses: Array<{ from: number; to: number }> = [];
  let previousEnd = 0;
  for (const region of regions) {
    pauses.push({ from: previousEnd, to: Math.max(previousEnd, region.start) });
    previousEnd = Math.max(previousEnd, region.end);
  }
  pauses.push({ from: previousEnd, to: windowSeconds });
  let best: { from: number; to: number; length: number } | null = null;
  for (const pause of pauses) {
    // The part of the pause inside the search range is what a cut may use.
    const from = Math.max(pause.from, low);
    const to = Math.min(pause.to, high);
    if (to < from) continue;
    const length = to - from;
    const closer = best && length === best.length && Math.abs((from + to) / 2 - target) < Math.abs((best.from + best.to) / 2 - target);
    if (!best || length > best.length || closer) best = { from, to, length };
  }
  // No pause at all in range (one region longer than the range: the VAD caps speech length, so only a
  // misconfigured cap gets here): cut at the target, the old fixed rule.
  if (!best) return target;
  // Mid-pause, so both chunks keep half of the silence around their edge words.
  return (best.from + best.to) / 2;
}
