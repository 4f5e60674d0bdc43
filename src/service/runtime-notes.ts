// What the operator is told at start about the runtime. The realtime listener prefers uWebSockets.js,
// whose Linux binaries need glibc 2.38 (Debian 13, Ubuntu 24.04): on an older system `auto` serves
// with `ws`, and the start says why rather than leaving the operator to wonder.
import type { TransportName } from '../realtime/transport/transport.js';

export interface RuntimeNote {
  level: 'info' | 'warn';
  message: string;
}

export interface RuntimeFacts {
  /** Why uWebSockets.js cannot serve here, in one sentence (uws-transport.ts); null where it loads. */
  uwsUnavailable: string | null;
  /** What SVC_REALTIME_TRANSPORT asked for, and what serves; null when this process has no realtime listener. */
  realtime: { asked: 'auto' | TransportName; serving: TransportName } | null;
}

export function runtimeNotes(facts: RuntimeFacts): RuntimeNote[] {
  const notes: RuntimeNote[] = [];
  if (facts.realtime?.asked === 'auto' && facts.realtime.serving === 'ws') {
    notes.push({
      level: 'info',
      message: `realtime served by ws: ${facts.uwsUnavailable ?? 'uWebSockets.js did not load'}`,
    });
  }
  return notes;
}
