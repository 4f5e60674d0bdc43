// Delivers the outbox's events: claims each due event under a lease, re-validates its destination
// (fresh DNS, every address public — the connection then goes to the address just validated), signs
// the stored body with a fresh timestamp, makes one POST and records the outcome with the time of the
// next attempt. Runs in the server process; survives restarts because all of its state is the outbox.
import { KEY_REVOKED_DELIVERY_STATUS } from '../jobs/key-revocation.js';
import { leaseOwnerOf } from '../store/instance-registry.js';
import type { WebhookDelivery, WebhookOutbox } from '../store/webhook-outbox.js';
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';
import { DestinationRefusedError } from './destination-refused-error.js';
import type { AttemptOutcome } from './post-webhook.js';
import { nextAttemptAt } from './retry-schedule.js';
import { webhookSignatures } from './sign-webhook.js';
import type { ValidatedDestination } from './validate-destination.js';

export interface DeliveryLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DeliveryWorkerDeps {
  /** This process's registered instance id: events are leased as '<instanceId>/webhooks'. */
  instanceId: string;
  outbox: WebhookOutbox;
  secrets: WebhookSecretStore;
  validate: (url: string) => Promise<ValidatedDestination>;
  post: (destination: ValidatedDestination, headers: Record<string, string>, body: Buffer, timeoutMs: number) => Promise<AttemptOutcome>;
  clock: () => Date;
  attemptTimeoutMs: number;
  /**
   * Whether the event's API key has been revoked, read before every attempt: a revoked key's events
   * are not sent (src/jobs/key-revocation.ts says why), whether they were pending at the revocation
   * or their job succeeded after it.
   */
  keyRevoked: (keyId: string) => Promise<boolean>;
  logger?: DeliveryLogger;
  /** Events attempted at the same time (a slow receiver must not hold up the others). */
  concurrency?: number;
  /** How often the worker looks for due events when nothing wakes it (real time). */
  pollIntervalMs?: number;
  /** Told the outcome of every attempt (the service's metrics). */
  onAttempt?: (outcome: WebhookAttemptOutcome) => void;
}

/** `refused`: the destination failed validation; `given_up`: a failed attempt that was the last. */
export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'refused' | 'given_up' | 'key_revoked';

export class WebhookDeliveryWorker {
  private readonly workerId: string;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pass: Promise<void> | null = null;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.workerId = leaseOwnerOf(deps.instanceId, 'webhooks');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A new event may be due now (a job just succeeded): look without waiting for the next poll. */
  kick(): void {
    this.wake?.();
  }

  /** Attempts every event due now; resolves with the number of attempts made. */
  deliverDue(): Promise<number> {
    // One pass at a time: a caller arriving during a pass waits for it and then runs its own. The
    // chain holds settled passes only, so a failed pass (the database away) neither stops the next
    // one nor leaves a rejection nobody handles; the caller of the failed pass gets its error.
    const previous = this.pass ?? Promise.resolve();
    const next = previous.then(() => this.attemptAllDue());
    const settled: Promise<void> = next.then(
      () => undefined,
      () => undefined,
    );
    this.pass = settled;
    void settled.then(() => {
      if (this.pass === settled) this.pass = null;
    });
    return next;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.pass;
  }

  private async run(): Promise<void> {
    const interval = this.deps.pollIntervalMs ?? 1000;
    while (this.running) {
      try {
        await this.deliverDue();
      } catch (error) {
        this.deps.logger?.warn({ err: error }, 'webhook delivery pass failed');
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, interval);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  private async attemptAllDue(): Promise<number> {
    const limit = this.deps.concurrency ?? 4;
    let attempts = 0;
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      if (!this.running && this.loop) break;
      const now = this.deps.clock().getTime();
      // The lease outlives the longest attempt (DNS + timeout) with a margin; a crash frees it at restart.
      const delivery = await this.deps.outbox.claimDue(this.workerId, now, this.deps.attemptTimeoutMs + 60_000);
      if (!delivery) break;
      attempts += 1;
      // An attempt that cannot record its outcome (the database went away) is logged, never left
      // to reject unobserved while this loop awaits a claim: its lease runs out and it is retried.
      const attempt = this.attempt(delivery)
        .catch((error: unknown) =>
          this.deps.logger?.warn({ err: error, eventId: delivery.eventId }, 'webhook attempt could not be recorded; it will be retried'),
        )
        .finally(() => inFlight.delete(attempt));
      inFlight.add(attempt);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    return attempts;
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const { clock, outbox, logger } = this.deps;
    if (await this.deps.keyRevoked(delivery.keyId)) {
      await outbox.abandonForKey(delivery.keyId, KEY_REVOKED_DELIVERY_STATUS, clock().getTime());
      this.deps.onAttempt?.('key_revoked');
      logger?.info({ eventId: delivery.eventId, jobId: delivery.jobId }, 'webhook not sent: the API key was revoked');
      return;
    }
    let outcome: { delivered: boolean; summary: string };
    let refused = false;
    try {
      outcome = await this.send(delivery);
    } catch (error) {
      if (error instanceof DestinationRefusedError) {
        refused = true;
        outcome = { delivered: false, summary: `refused: ${error.reason}` };
      } else {
        logger?.warn({ err: error, eventId: delivery.eventId }, 'webhook attempt failed unexpectedly');
        outcome = { delivered: false, summary: 'internal error' };
      }
    }
    const now = clock().getTime();
    const attemptsMade = delivery.attempts + 1;
    // A redelivery asked for in the console is one attempt: it is not retried on the schedule.
    const next = outcome.delivered || delivery.redeliveryRequestedAtMs !== null ? null : nextAttemptAt(attemptsMade, now);
    await outbox.recordAttempt(delivery.eventId, this.workerId, { delivered: outcome.delivered, summary: outcome.summary, nextAttemptAtMs: next }, now);
    this.deps.onAttempt?.(outcome.delivered ? 'delivered' : next === null ? 'given_up' : refused ? 'refused' : 'failed');
    const details = { eventId: delivery.eventId, jobId: delivery.jobId, attempt: attemptsMade, outcome: outcome.summary };
    if (outcome.delivered) logger?.info(details, 'webhook delivered');
    else if (delivery.redeliveryRequestedAtMs !== null) logger?.warn(details, 'webhook redelivery failed');
    else if (next === null) logger?.warn(details, 'webhook given up after the last attempt');
    else logger?.info({ ...details, nextAttemptAt: new Date(next).toISOString() }, 'webhook attempt failed; will retry');
  }

  private async send(delivery: WebhookDelivery): Promise<{ delivered: boolean; summary: string }> {
    const { clock } = this.deps;
    // Validated again on every attempt: what was public at request time may not be now.
    const destination = await this.deps.validate(delivery.url);
    // Every version that may sign now, the active one first: during a rotation's 24 h overlap a
    // receiver still holding the previous secret verifies the event, and so does one that already
    // has the new one. That covers the version pinned at acceptance while it is usable; once it is
    // not, the receiver has had a day to move over and the active version alone signs.
    const keys = await this.deps.secrets.signingKeys(delivery.keyId, clock().getTime());
    if (keys.length === 0) return { delivered: false, summary: 'no usable signing secret on the key' };
    const body = Buffer.from(delivery.body, 'utf8');
    const timestamp = Math.floor(clock().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'svc-stt-webhooks/1',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignatures(
        keys.map((k) => k.key),
        delivery.eventId,
        timestamp,
        body,
      ),
    };
    return this.deps.post(destination, headers, body, this.deps.attemptTimeoutMs);
  }
}
