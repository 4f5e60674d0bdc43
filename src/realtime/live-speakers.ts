// Live speaker labels for a realtime session (the contract: off by default, provisional, revisioned
// independently of the text, never rewriting turn_final or final). Each finished turn's audio is
// reduced at once to the diarizer's features over its speech (speakerFeatures), and the audio is let
// go. After each turn, the features of the session's turns laid end to end (the silences between
// them left out) are diarized together, so a voice heard in turn 2 and in turn 9 keeps one label.
// A revision lists only the turns whose labels changed: re-clustering with more speech may move an
// earlier turn to another voice, which is why labels are provisional. Features are kept for the last
// MAX_LABELLED_SECONDS of turns (7.6 kB a second); older turns keep the labels they last had.
// Work is serial, one turn behind another; turns that queue up meanwhile are diarized once, together.
// Known speakers (enrolled voices named in the start) are matched at every revision by the same rule
// as an upload's (src/pipeline/voice-matching.ts): a voice carries a name only while it matches; the
// letters are kept stable underneath, so a voice that stops matching falls back to its letter, never
// to a name it no longer earns.
import type { EngineWork } from '../domain/work-classes.js';
import { FEATURE_FRAMES_PER_SECOND, type SpeakerDiarizer, SpeakerFeatureCanvas, type SpeakerFeatures } from '../engine/speaker-diarizer.js';
import type { KnownSpeakerTiming } from '../pipeline/speaker-attachment.js';
import { type KnownSpeaker, matchKnownSpeakers } from '../pipeline/voice-matching.js';
import { nameVoices, type TurnSpeakers, turnSpeakers, voicePieces } from './speaker-labelling.js';

/** Seconds of turn audio whose features a session keeps for re-diarization. */
export const MAX_LABELLED_SECONDS = 1200;

/** What `ready` says of speakers, and what the session says if labelling stops. */
export const SPEAKERS_OFF = { status: 'off' } as const;
export const SPEAKERS_LIVE = { status: 'provisional', event: 'speaker_labels' } as const;
const UNAVAILABLE_REASON = 'live speaker labelling failed; the text continues without labels';

export interface LiveSpeakersEvents {
  /** A new revision of the labels: the turns whose labels changed. */
  labels(fields: {
    revision_id: string;
    replaces_revision_id?: string;
    turns: Array<{ turn_id: string; speaker: string | null; segments: TurnSpeakers['segments'] }>;
    /** With known speakers: each name, whether a voice matched it in this revision, and how strongly. */
    known_speakers?: KnownSpeakerTiming[];
  }): void;
  /** Labelling stopped for the rest of the session (the text goes on). */
  unavailable(reason: string): void;
}

interface KeptTurn {
  turnId: string;
  /** Session seconds of the features' first frame. */
  sessionStart: number;
  features: SpeakerFeatures;
  /** Speech within the turn, seconds from its first frame. */
  regions: Array<{ start: number; end: number }>;
}

export class LiveSpeakers {
  private readonly kept: KeptTurn[] = [];
  /** What was published: names where a voice matched a known speaker, letters elsewhere. */
  private readonly labels = new Map<string, TurnSpeakers>();
  /** The letters alone, kept stable across revisions whatever names are laid over them. */
  private readonly letters = new Map<string, TurnSpeakers>();
  /** Labels of turns whose features were let go: a new voice does not take them. */
  private readonly frozen = new Set<string>();
  private revision = 0;
  private queued = 0;
  private work: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(
    private readonly diarizer: SpeakerDiarizer,
    private readonly events: LiveSpeakersEvents,
    /** The session's calls, for the engine's scheduler. */
    private readonly engineWork: EngineWork,
    private readonly keepSeconds = MAX_LABELLED_SECONDS,
    /** Enrolled voices to name when they match (none: letters only). */
    private readonly known: readonly KnownSpeaker[] = [],
  ) {}

  /** A finished turn: `pcm` starts at `sessionStart` seconds; `regions` (seconds from its start) hold its speech. */
  addTurn(turnId: string, sessionStart: number, pcm: Float32Array, regions: Array<{ start: number; end: number }>): void {
    if (this.failed || regions.length === 0) return;
    this.queued++;
    this.work = this.work.then(async () => {
      this.queued--;
      if (this.failed) return;
      try {
        const features = await this.diarizer.speakerFeatures(pcm, regions, { work: this.engineWork });
        this.keep({ turnId, sessionStart, features, regions });
        if (this.queued === 0) await this.relabel();
      } catch {
        this.failed = true;
        this.events.unavailable(UNAVAILABLE_REASON);
      }
    });
  }

  /** Resolves when every turn given so far is labelled (or labelling has stopped). */
  settled(): Promise<void> {
    return this.work;
  }

  private keep(turn: KeptTurn): void {
    this.kept.push(turn);
    let frames = this.kept.reduce((sum, t) => sum + t.features.frames, 0);
    while (this.kept.length > 1 && frames > this.keepSeconds * FEATURE_FRAMES_PER_SECOND) {
      const old = this.kept.shift()!;
      frames -= old.features.frames;
      for (const s of this.letters.get(old.turnId)?.segments ?? []) this.frozen.add(s.speaker);
    }
  }

  private async relabel(): Promise<void> {
    // The turns end to end, as one recording's features (each turn starts on the frame grid).
    const joined = new SpeakerFeatureCanvas(this.kept.reduce((sum, t) => sum + t.features.frames, 0) / FEATURE_FRAMES_PER_SECOND);
    const layout: Array<{ turnId: string; offset: number; seconds: number; sessionStart: number }> = [];
    const regions: Array<{ start: number; end: number }> = [];
    let offset = 0;
    for (const t of this.kept) {
      const seconds = t.features.frames / FEATURE_FRAMES_PER_SECOND;
      layout.push({ turnId: t.turnId, offset, seconds, sessionStart: t.sessionStart });
      joined.place(offset, t.features);
      for (const r of t.regions) if (Math.min(r.end, seconds) > r.start) regions.push({ start: offset + r.start, end: offset + Math.min(r.end, seconds) });
      offset += seconds;
    }
    const diarization = await this.diarizer.diarize(joined.features, regions, {}, { work: this.engineWork });
    const pieces = voicePieces(diarization.turns, layout);
    const turnIds = layout.map((t) => t.turnId);
    const letters = nameVoices(pieces, this.letters, this.frozen);
    for (const turn of turnSpeakers(turnIds, pieces, letters)) this.letters.set(turn.turnId, turn);
    const matches = this.known.length > 0 ? matchKnownSpeakers(diarization.profiles, this.known) : [];
    const names = new Map(letters);
    for (const m of matches) if (m.voice !== null) names.set(m.voice, m.name);
    const changed = turnSpeakers(turnIds, pieces, names).filter((next) => JSON.stringify(next) !== JSON.stringify(this.labels.get(next.turnId)));
    if (changed.length === 0) return;
    for (const turn of changed) this.labels.set(turn.turnId, turn);
    this.revision++;
    this.events.labels({
      revision_id: `speakers.${this.revision}`,
      ...(this.revision > 1 ? { replaces_revision_id: `speakers.${this.revision - 1}` } : {}),
      turns: changed.map((t) => ({ turn_id: t.turnId, speaker: t.speaker, segments: t.segments })),
      ...(this.known.length > 0 ? { known_speakers: matches.map((m) => ({ name: m.name, matched: m.voice !== null, similarity: m.similarity })) } : {}),
    });
  }
}
