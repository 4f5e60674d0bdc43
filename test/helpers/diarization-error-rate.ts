// Diarization error rate, scored as NIST's md-eval does: over the reference's speech time (a second
// in which two reference speakers talk counts twice), the share that is missed (reference speech
// with too few hypothesis speakers), false alarm (hypothesis speech beyond the reference's) or
// confused (attributed to the wrong speaker under the best one-to-one mapping of hypothesis labels
// to reference labels). Time within `collar` seconds of a reference turn's start or end is not
// scored: a human annotator cannot place a boundary closer than that either.
export interface SpeakerTurn {
  speaker: string;
  start: number;
  end: number;
}

export interface DiarizationScore {
  der: number;
  /** Seconds of reference speech scored (overlapped speech counted once per speaker). */
  scored: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** The mapping used: hypothesis label -> reference label. */
  mapping: Record<string, string>;
}

/** An elementary stretch of the timeline where nothing changes, with who speaks in it. */
interface Piece {
  seconds: number;
  reference: string[];
  hypothesis: string[];
}

export function diarizationErrorRate(reference: SpeakerTurn[], hypothesis: SpeakerTurn[], collar = 0.25): DiarizationScore {
  for (const turn of [...reference, ...hypothesis]) {
    if (!(turn.end >= turn.start && turn.start >= 0)) throw new RangeError(`a turn ends before it starts: ${JSON.stringify(turn)}`);
  }
  const excluded = reference.flatMap((turn) => [
    [turn.start - collar, turn.start + collar],
    [turn.end - collar, turn.end + collar],
  ]) as Array<[number, number]>;
  const cuts = [...new Set([...reference, ...hypothesis].flatMap((t) => [t.start, t.end]).concat(excluded.flat().filter((x) => x >= 0)))].sort((a, b) => a - b);
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [from, to] = [cuts[i], cuts[i + 1]];
    if (to <= from) continue;
    const middle = (from + to) / 2;
    if (collar > 0 && excluded.some(([a, b]) => middle > a && middle < b)) continue;
    const active = (turns: SpeakerTurn[]) => [...new Set(turns.filter((t) => t.start <= middle && middle < t.end).map((t) => t.speaker))];
    pieces.push({ seconds: to - from, reference: active(reference), hypothesis: active(hypothesis) });
  }
  const mapping = bestMapping(pieces);
  let scored = 0;
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  for (const { seconds, reference: ref, hypothesis: hyp } of pieces) {
    const correct = hyp.filter((h) => mapping[h] !== undefined && ref.includes(mapping[h])).length;
    scored += seconds * ref.length;
    missed += seconds * Math.max(0, ref.length - hyp.length);
    falseAlarm += seconds * Math.max(0, hyp.length - ref.length);
    confusion += seconds * (Math.min(ref.length, hyp.length) - correct);
  }
  return { der: scored > 0 ? (missed + falseAlarm + confusion) / scored : 0, scored, missed, falseAlarm, confusion, mapping };
}

/**
 * The one-to-one mapping of hypothesis labels to reference labels with the most time of agreement
 * (what md-eval's Hungarian step finds). Speaker counts here are small (at most a handful), so every
 * assignment is tried.
 */
function bestMapping(pieces: Piece[]): Record<string, string> {
  const refs = [...new Set(pieces.flatMap((p) => p.reference))].sort();
  const hyps = [...new Set(pieces.flatMap((p) => p.hypothesis))].sort();
  if (refs.length > 8 || hyps.length > 8) throw new RangeError('at most 8 speakers per side');
  const overlap = (h: string, r: string) => pieces.reduce((sum, p) => sum + (p.hypothesis.includes(h) && p.reference.includes(r) ? p.seconds : 0), 0);
  const gain = hyps.map((h) => refs.map((r) => overlap(h, r)));
  let best = { total: -1, assignment: [] as Array<number | null> };
  const search = (i: number, used: Set<number>, assignment: Array<number | null>, total: number) => {
    if (i === hyps.length) {
      if (total > best.total) best = { total, assignment: [...assignment] };
      return;
    }
    search(i + 1, used, [...assignment, null], total);
    for (let r = 0; r < refs.length; r++) {
      if (used.has(r)) continue;
      used.add(r);
      search(i + 1, used, [...assignment, r], total + gain[i][r]);
      used.delete(r);
    }
  };
  search(0, new Set(), [], 0);
  const mapping: Record<string, string> = {};
  best.assignment.forEach((r, i) => {
    if (r !== null) mapping[hyps[i]] = refs[r];
  });
  return mapping;
}
