// Who is waiting for an engine call, most urgent first (the engine's scheduler, docs/DESIGN.md
// "Engine scheduler"):
//   realtime_final    a realtime turn's final text (someone is waiting for the turn to be over);
//   realtime_partial  a realtime turn's running text (superseded within a second if late);
//   interactive       an inline or streamed request (a client holds the connection open);
//   batch             jobs' chunks and their decoration (nobody is waiting on the line).

export const WORK_CLASSES = ['realtime_final', 'realtime_partial', 'interactive', 'batch'] as const;
export type WorkClass = (typeof WORK_CLASSES)[number];

/** What the engine's scheduler knows of a call: its class, and whose and which request it serves. */
export interface EngineWork {
  workClass: WorkClass;
  /** The tenant the call is for: calls of one class share the workers round-robin by tenant. */
  tenant: string;
  /** The request (inline request, job, realtime session) the call belongs to: its windows share a turn. */
  request: string;
}
