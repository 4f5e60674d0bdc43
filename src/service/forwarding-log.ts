// The logger of the service's workers (the job runner and the job housekeeping), which are built
// before the HTTP app whose logger they write to: the app's routes need the runner as their queue,
// so the app comes last. Lines written before `use` names the app's logger (the sweeper's first pass
// runs before the app exists, and the upload expiries it makes belong in the job audit trail) are
// held, up to a bound, and written when it does.
export interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

type Level = keyof WorkerLog;

/** Lines held before the logger is known; a start that writes more than this is not a normal start. */
const MAX_HELD_LINES = 1000;

export class ForwardingLog implements WorkerLog {
  private target: WorkerLog | null = null;
  private held: Array<[Level, object, string]> = [];

  /** From now on lines go to `target`; the lines held so far are written to it first. */
  use(target: WorkerLog): void {
    this.target = target;
    const held = this.held;
    this.held = [];
    for (const [level, details, message] of held) target[level](details, message);
  }

  info(details: object, message: string): void {
    this.write('info', details, message);
  }

  warn(details: object, message: string): void {
    this.write('warn', details, message);
  }

  error(details: object, message: string): void {
    this.write('error', details, message);
  }

  private write(level: Level, details: object, message: string): void {
    if (this.target) this.target[level](details, message);
    else if (this.held.length < MAX_HELD_LINES) this.held.push([level, details, message]);
  }
}
