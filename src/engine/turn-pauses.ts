// A speaker's turn holds its own short pauses. The native diarizer's turns follow the VAD's speech
// regions, so a talker who stops for breath or a word splits their turn in two and the pause reads
// as nobody speaking. Conversation analysis and diarization references count it as the talker's:
// a pause is silence between one speaker's stretches of speech, a gap is silence at a change of
// speaker (Sacks, Schegloff & Jefferson 1974), and diarization references (RTTM turns, as md-eval
// scores them) run across a talker's pauses. Consecutive turns of one voice whose gap is at most
// TURN_PAUSE_SECONDS become one turn; turns of different voices are never moved, and no speech
// changes voice.
import type { SpeakerTurn } from './speaker-diarizer.js';

/**
 * The longest silence a turn holds, in seconds. A talker's pauses run longer than the gaps between
 * talkers (Heldner & Edlund 2010, "Pauses, gaps and overlaps in conversations"; a quick change of
 * speaker is about 0.2 s), and a typical pause lasts a quarter to half a second (Lundholm Fors 2015,
 * thesis "Production and perception of pauses in speech"); silent pauses run on into a class of long
 * ones, over 1 s, at larger breaks (Campione & Véronis 2002, "A large-scale multilingual study of
 * silent pause duration"). Half a second holds the typical pause and costs next to nothing where a
 * hold is wrong: references are judged with a collar of 0.25 s either side of each boundary (md-eval),
 * so a held silence of up to 0.5 s lies within the collars of the turns around it, whether the
 * reference leaves it out (its convention holds only shorter pauses) or the diarizer gave one voice to
 * two talkers and the silence was a gap. Longer pauses are held by some references (ami-dev00's, up to
 * 0.8 s) but would cost in those two cases: 1 s made the generated short exchanges worse (bench
 * diarization-short, DER of two voices 0.107 to 0.117). Not chosen on the development recordings
 * (SPEAKERS.md has both bounds' figures).
 */
export const TURN_PAUSE_SECONDS = 0.5;

/** Turn times come from 10 ms frames in floating point: a gap of exactly the bound is within it. */
const TOLERANCE_SECONDS = 1e-6;

/**
 * `turns` (in time order) with each run of consecutive turns of one voice, each at most
 * `maxPauseSeconds` after the one before, joined into one turn; the input is not changed.
 */
export function holdPauses(turns: readonly SpeakerTurn[], maxPauseSeconds: number): SpeakerTurn[] {
  const held: SpeakerTurn[] = [];
  for (const turn of turns) {
    const last = held[held.length - 1];
    if (last !== undefined && last.speaker === turn.speaker && turn.start - last.end <= maxPauseSeconds + TOLERANCE_SECONDS) {
      last.end = Math.max(last.end, turn.end);
    } else {
      held.push({ start: turn.start, end: turn.end, speaker: turn.speaker });
    }
  }
  return held;
}
