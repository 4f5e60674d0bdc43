// The session's server events (svc-agent-v1). Every event carries a `sequence` strictly increasing
// over the session; text events carry their turn and a revision: a turn's partials are numbered
// revisions, each naming the one it replaces, and its turn_final is the last revision.

export interface TurnText {
  turnId: string;
  text: string;
  /** Seconds of session audio. */
  start: number;
  end: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export class EventSequence {
  private sequence = 0;
  private readonly revisions = new Map<string, number>();

  next(type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
    return { type, sequence: ++this.sequence, ...fields };
  }

  /** A partial or turn_final: the turn's next revision, replacing its previous one. */
  revision(type: 'partial' | 'turn_final', turn: TurnText): Record<string, unknown> {
    const previous = this.revisions.get(turn.turnId) ?? 0;
    const revision = previous + 1;
    this.revisions.set(turn.turnId, revision);
    return this.next(type, {
      turn_id: turn.turnId,
      revision_id: `${turn.turnId}.${revision}`,
      ...(previous > 0 ? { replaces_revision_id: `${turn.turnId}.${previous}` } : {}),
      text: turn.text,
      start: round3(turn.start),
      end: round3(turn.end),
    });
  }
}
