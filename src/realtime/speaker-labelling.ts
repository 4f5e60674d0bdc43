// How a live diarization's voices become labels that do not jump between revisions. The session's
// turns are diarized together after every turn; the diarizer numbers voices by first appearance, so
// one more turn can renumber them (a short early voice merged away, a new voice split off). Voices
// are therefore named by the labels they already carry: each voice takes the label it shares the most
// speech time with in the previous revision (greedy, largest overlap first), and a voice without one
// takes the first letter no turn is labelled with.
import type { SpeakerTurn } from '../engine/speaker-diarizer.js';

/** A stretch of one turn spoken by one labelled voice; seconds of session audio. */
export interface SpeakerPiece {
  speaker: string;
  start: number;
  end: number;
}

/** One turn's live labels: its pieces in time order, and the label with the most speech (null without). */
export interface TurnSpeakers {
  turnId: string;
  speaker: string | null;
  segments: SpeakerPiece[];
}

/** A diarized voice's stretch inside one turn; seconds of session audio. */
export interface VoicePiece {
  turnId: string;
  voice: number;
  start: number;
  end: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Labels for the voices of `pieces`, kept from `previous` (turn id → its last labels) where the voices
 * overlap them; `reserved` labels (turns no longer re-diarized) are not given to a new voice.
 */
export function nameVoices(pieces: VoicePiece[], previous: ReadonlyMap<string, TurnSpeakers>, reserved: ReadonlySet<string>): Map<number, string> {
  const overlap = new Map<string, number>();
  const order: number[] = [];
  for (const p of pieces) {
    if (!order.includes(p.voice)) order.push(p.voice);
    for (const old of previous.get(p.turnId)?.segments ?? []) {
      const o = Math.min(p.end, old.end) - Math.max(p.start, old.start);
      if (o > 0) overlap.set(`${p.voice}\u0000${old.speaker}`, (overlap.get(`${p.voice}\u0000${old.speaker}`) ?? 0) + o);
    }
  }
  const names = new Map<number, string>();
  const taken = new Set<string>(reserved);
  const pairs = [...overlap.entries()].map(([k, seconds]) => {
    const [voice, speaker] = k.split('\u0000');
    return { voice: Number(voice), speaker, seconds };
  });
  pairs.sort((a, b) => b.seconds - a.seconds || a.voice - b.voice || a.speaker.localeCompare(b.speaker));
  const kept = new Set<string>();
  for (const { voice, speaker } of pairs) {
    if (names.has(voice) || kept.has(speaker)) continue;
    names.set(voice, speaker);
    kept.add(speaker);
  }
  for (const label of kept) taken.add(label);
  for (const voice of order) {
    if (names.has(voice)) continue;
    const label = freeLabel(taken);
    names.set(voice, label);
    taken.add(label);
  }
  return names;
}

/** A, B, … Z, then A2, B2, … (a session long enough to meet more than 26 voices). */
function freeLabel(taken: ReadonlySet<string>): string {
  for (let round = 1; ; round++) {
    for (let i = 0; i < 26; i++) {
      const label = String.fromCharCode(65 + i) + (round === 1 ? '' : String(round));
      if (!taken.has(label)) return label;
    }
  }
}

/** Each turn's labels from the named pieces: adjacent pieces of one label joined, times to the millisecond. */
export function turnSpeakers(turnIds: string[], pieces: VoicePiece[], names: ReadonlyMap<number, string>): TurnSpeakers[] {
  return turnIds.map((turnId) => {
    const segments: SpeakerPiece[] = [];
    const seconds = new Map<string, number>();
    for (const p of pieces.filter((x) => x.turnId === turnId).sort((a, b) => a.start - b.start)) {
      const speaker = names.get(p.voice)!;
      seconds.set(speaker, (seconds.get(speaker) ?? 0) + (p.end - p.start));
      const last = segments[segments.length - 1];
      if (last && last.speaker === speaker && p.start - last.end < 0.011) last.end = round3(p.end);
      else segments.push({ speaker, start: round3(p.start), end: round3(p.end) });
    }
    const speaker = [...seconds.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
    return { turnId, speaker, segments };
  });
}

/**
 * The diarization of turns laid end to end (turn k's audio from `offset` seconds of that joined
 * timeline) as pieces of each turn in session time; a diarized turn that spans two turns is split.
 */
export function voicePieces(
  diarized: SpeakerTurn[],
  turns: ReadonlyArray<{ turnId: string; offset: number; seconds: number; sessionStart: number }>,
): VoicePiece[] {
  const pieces: VoicePiece[] = [];
  for (const d of diarized) {
    for (const t of turns) {
      const start = Math.max(d.start, t.offset);
      const end = Math.min(d.end, t.offset + t.seconds);
      if (end - start <= 0) continue;
      pieces.push({ turnId: t.turnId, voice: d.speaker, start: t.sessionStart + start - t.offset, end: t.sessionStart + end - t.offset });
    }
  }
  return pieces;
}
