// What the operator is told at start about the runtime. The realtime listener prefers uWebSockets.js,
// but the build the npm registry offers (@trufflesuite/uws-js-unofficial) has binaries for Node.js
// 16/18/20 alone, and the supported runtime is Node.js 24 LTS: there `auto` serves with `ws`, and
// says why rather than leaving the operator to wonder.
import type { TransportName } from '../realtime/transport/transport.js';

export interface RuntimeNote {
  level: 'info' | 'warn';
  message: string;
}

export interface RuntimeFacts {
  /** `process.versions.node`. */
  nodeVersion: string;
  /** `process.versions.modules`: the ABI a native binary must be built for. */
  abi: string;
  /** What SVC_REALTIME_TRANSPORT asked for, and what serves; null when this process has no realtime listener. */
  realtime: { asked: 'auto' | TransportName; serving: TransportName } | null;
}

export function runtimeNotes(facts: RuntimeFacts): RuntimeNote[] {
  const notes: RuntimeNote[] = [];
  if (facts.realtime?.asked === 'auto' && facts.realtime.serving === 'ws') {
    notes.push({
      level: 'info',
      message:
        `realtime served by ws: uWebSockets.js has no binary for Node.js ${facts.nodeVersion} (ABI ${facts.abi}; ` +
        'the registry build covers Node.js 16, 18 and 20)',
    });
  }
  return notes;
}
