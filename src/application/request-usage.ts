// What one transcription request's audio came to in billing, for the request's line in the access
// audit log (docs/OPERATIONS.md "Access audit log"): the length measured, and the billing outcome — `metered`
// (with the seconds the ledger recorded for it: 0 for work counted but not billed, an unsupported
// language), `refused` (with the block's reason), `not_metered` (it failed, or a hang-up stopped it,
// before anything was metered) or `job` (a durable job, or the replay of one: metered when the job
// succeeds). The use case notes it as it goes (transcribe-upload.ts); src/api writes it on the
// request's line once the use case has ended, which after a hang-up is later than the response's
// close. Numbers and names only: nothing of the audio, the request's fields or the transcript.
import type { BlockReason } from '../billing/billing-decision.js';
import type { TranscribeUploadDeps } from './transcribe-upload-deps.js';

export type BillingOutcome = 'metered' | 'refused' | 'not_metered' | 'job';

/** The fields a request's audit line gets from its usage. */
export interface RequestUsageFields {
  /** The audio's measured length, once it was measured. */
  audioSeconds?: number;
  billing: BillingOutcome;
  /** `metered`: the seconds the ledger was given for this request. */
  meteredSeconds?: number;
  /** `refused`: why. */
  blockReason?: BlockReason;
  /** With `redact`: how many redactions of each class (counts only, never what was removed). */
  redactions?: Record<string, number>;
}

export class RequestUsage {
  private audioSeconds: number | null = null;
  private meteredMs: number | null = null;
  private refusal: BlockReason | null = null;
  private job = false;
  private redactions: Record<string, number> | null = null;
  private finished = false;
  private resolveEnded!: () => void;
  /** Settles once the use case has ended: answered, refused, failed, or stopped by a hang-up. */
  readonly ended: Promise<void> = new Promise((resolve) => {
    this.resolveEnded = resolve;
  });

  /** The audio's length, as measured (decoded, or probed). */
  measured(seconds: number): void {
    this.audioSeconds = seconds;
  }

  /** The ledger recorded `audioMs` of this request's work. */
  metered(audioMs: number): void {
    this.meteredMs = (this.meteredMs ?? 0) + audioMs;
  }

  /** Billing refused the work. */
  refused(reason: BlockReason): void {
    this.refusal = reason;
  }

  /** Redaction removed these many of each class from the answer. */
  redacted(counts: Record<string, number>): void {
    this.redactions = counts;
  }

  /** The answer is a durable job (metered by the job when it succeeds). */
  becameJob(): void {
    this.job = true;
  }

  /** The use case has ended: nothing more will be recorded. */
  end(): void {
    this.finished = true;
    this.resolveEnded();
  }

  get hasEnded(): boolean {
    return this.finished;
  }

  fields(): RequestUsageFields {
    const length = {
      ...(this.audioSeconds === null ? {} : { audioSeconds: this.audioSeconds }),
      ...(this.redactions === null ? {} : { redactions: this.redactions }),
    };
    if (this.refusal !== null) return { ...length, billing: 'refused', blockReason: this.refusal };
    if (this.meteredMs !== null) return { ...length, billing: 'metered', meteredSeconds: this.meteredMs / 1000 };
    if (this.job) return { ...length, billing: 'job' };
    return { ...length, billing: 'not_metered' };
  }
}

type Billing = TranscribeUploadDeps['billing'];

/**
 * The use case's billing, noting on `usage` what each metering recorded. The billing calls stay as
 * they are; only what they did is noted.
 */
export function meteringNoted(billing: Billing, usage: RequestUsage): Billing {
  return {
    requireAllowance: (...args) => billing.requireAllowance(...args),
    reserve: (...args) => billing.reserve(...args),
    release: (...args) => billing.release(...args),
    meter: async (key, work) => {
      const recorded = await billing.meter(key, work);
      usage.metered(work.audioMs);
      return recorded;
    },
  };
}
