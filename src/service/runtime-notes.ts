// What the operator is told at start about the runtime: Node.js 24 LTS is the supported runtime;
// Node.js 20 (past its end of life in April 2026) still runs, only because the uWebSockets.js binary
// the registry offers (@trufflesuite/uws-js-unofficial) is built for Node 16/18/20 alone. On newer
// Node the realtime listener serves with `ws`, and says why.
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

export const SUPPORTED_NODE_MAJOR = 24;
const END_OF_LIFE_MAJORS = [20];

export function runtimeNotes(facts: RuntimeFacts): RuntimeNote[] {
  const notes: RuntimeNote[] = [];
  const major = Number(facts.nodeVersion.split('.')[0]);
  if (END_OF_LIFE_MAJORS.includes(major)) {
    notes.push({
      level: 'warn',
      message:
        `Node.js ${facts.nodeVersion} is past its end of life: run Node.js ${SUPPORTED_NODE_MAJOR} LTS ` +
        '(Node.js 20 is kept working only for the uWebSockets.js realtime transport)',
    });
  }
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
