// The playground's answers between its POST and the page that shows them (redirect after POST): a
// reload or a back button repeats only the GET, never the transcription (nor its billing). Kept in
// this process's memory only, never on disk or in a cookie (a transcript is patient data), for the
// session that asked, for a few minutes, a few per session: a page asked for later, in another
// process or by another session is gone, and says so.
import { randomBytes } from 'node:crypto';

import type { Notice } from './console-layout.js';
import type { PlaygroundForm } from './playground-page.js';

/** How long an answer stays to be shown (a reload, the back button, a look later in the visit). */
export const PLAYGROUND_RESULT_MS = 15 * 60_000;
/** Answers kept per session (older ones go first), and in all. */
const PER_SESSION = 4;
const IN_ALL = 256;

/** What the page shows: the form as sent (never the file), the rendered answer and its notice. */
export interface PlaygroundView {
  form: PlaygroundForm;
  result: string;
  notice: Notice | null;
}

interface Kept {
  view: PlaygroundView;
  /** The asking session's CSRF token: a secret of that session alone. */
  session: string;
  expiresAtMs: number;
}

export class PlaygroundResults {
  /** In the order kept (a Map keeps insertion order): the oldest first. */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Keeps an answer for `session`; returns the id its page is read by. */
  keep(session: string, view: PlaygroundView): string {
    this.expire();
    const mine = [...this.kept].filter(([, k]) => k.session === session);
    for (const [id] of mine.slice(0, Math.max(0, mine.length - PER_SESSION + 1))) this.kept.delete(id);
    while (this.kept.size >= IN_ALL) this.kept.delete(this.kept.keys().next().value!);
    const id = randomBytes(16).toString('base64url');
    this.kept.set(id, { view, session, expiresAtMs: this.clock() + PLAYGROUND_RESULT_MS });
    return id;
  }

  /** The answer `id` of `session`, while it is kept; null otherwise (another session's is null too). */
  read(session: string, id: string): PlaygroundView | null {
    this.expire();
    const kept = this.kept.get(id);
    return kept && kept.session === session ? kept.view : null;
  }

  private expire(): void {
    const now = this.clock();
    for (const [id, k] of this.kept) if (k.expiresAtMs <= now) this.kept.delete(id);
  }
}
