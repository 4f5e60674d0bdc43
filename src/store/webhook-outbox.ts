// The webhook outbox as the delivery worker sees it. Events enter it with their job's `succeeded`
// transition (JobStore.succeed); from then on the worker claims due events under a lease, so that a
// crash mid-attempt hands the event to the next claim (at least once, same event id) and two
// workers never attempt one event at the same time.

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  eventId: string;
  jobId: string;
  keyId: string;
  /** The signing-secret version pinned when the job was accepted. */
  secretVersion: number;
  url: string;
  body: string;
  state: DeliveryState;
  /** Attempts that completed (an attempt cut off by a crash is not counted; it is made again). */
  attempts: number;
  nextAttemptAtMs: number | null;
  lastAttemptAtMs: number | null;
  /** Operator-facing summary of the last attempt ('http 204', 'timeout after 10000 ms', ...). */
  lastStatus: string | null;
  createdAtMs: number;
  /** When a redelivery was asked for (the console), until it is attempted: that attempt is the only one. */
  redeliveryRequestedAtMs: number | null;
}

/** A delivery as a tenant's people see it: metadata only, never the body (its type aside) or the secret version. */
export interface WebhookDeliverySummary extends Omit<WebhookDelivery, 'body' | 'secretVersion'> {
  /** The event's `type` ('transcription.job.succeeded', ...). */
  eventType: string;
}

export interface AttemptRecord {
  delivered: boolean;
  summary: string;
  /** When to try again; null when this was the last attempt (or it delivered). */
  nextAttemptAtMs: number | null;
}

export interface WebhookOutbox {
  /** Leases the event that has been due longest to `workerId`; null when none is due. */
  claimDue(workerId: string, nowMs: number, leaseMs: number): Promise<WebhookDelivery | null>;
  /** Records a finished attempt of a leased event and releases the lease; false when the lease was lost. */
  recordAttempt(eventId: string, workerId: string, attempt: AttemptRecord, nowMs: number): Promise<boolean>;
  /**
   * Gives up every pending event of a key without another attempt (the key was revoked): state
   * `failed`, `summary` as the last status, any lease cleared. Returns how many.
   */
  abandonForKey(keyId: string, summary: string, nowMs: number): Promise<number>;
  /**
   * Leases of instances no longer registered (src/store/instance-registry.ts; leases are named
   * '<instance id>/<slot>') are released: their events are claimable at once. Returns how many.
   */
  releaseLeasesOfDeadInstances(): Promise<number>;
  /** The earliest time a pending event is due (for the worker's sleep), or null. */
  nextDueAtMs(): Promise<number | null>;
  /** Operators' view of a job's event (the CLI's `webhooks deliveries --job`). */
  forJob(jobId: string): Promise<WebhookDelivery | null>;
  forEvent(eventId: string): Promise<WebhookDelivery | null>;
  /** The newest events of these keys (a tenant's), newest first, at most `limit`. */
  recentForKeys(keyIds: readonly string[], limit: number): Promise<WebhookDeliverySummary[]>;
  /**
   * A settled event (delivered or failed) is due again at nowMs for one more attempt, which is not
   * retried on the schedule. False when the event is unknown or not settled (pending: it has attempts to come).
   */
  redeliver(eventId: string, nowMs: number): Promise<boolean>;
}
