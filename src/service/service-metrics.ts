// The process's Prometheus metrics (prom-client, one Registry per service, never the global one:
// tests run several services in one process). Labels are bounded and carry no content: route
// templates (`/v1/jobs/:job_id`, never a concrete id or query), methods, statuses, job states,
// model ids, webhook outcomes. No key, file name or transcript ever becomes a label; tenant ids only
// in the usage gauges, at most `tenantLabels` of them (usage-gauges.ts).
//
// Jobs by state, the queue depth and the period's usage are read from the database at scrape time
// (every process shows the shared figures); a scrape while the database is away reports
// `svc_stt_store_up 0` and leaves those gauges at their last values rather than failing.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { BlockReason } from '../billing/billing-decision.js';
import { MICROS_PER_UNIT } from '../billing/billing-terms.js';
import type { ServiceRole } from '../config/service-config.js';
import { MODEL_IDS, type ModelId } from '../domain/model-ids.js';
import type { UsagePool } from '../domain/usage-routes.js';
import { WORK_CLASSES, type WorkClass } from '../domain/work-classes.js';
import type { Engine, EngineStats } from '../engine/engine.js';
import type { WorkClassStats } from '../engine/work-scheduler.js';
import type { JobCounts } from '../store/job-store.js';
import type { PoolTotals, SafetyCounters, UsageEvent } from '../store/usage-record.js';
import type { WebhookAttemptOutcome } from '../webhooks/webhook-delivery-worker.js';
import { usageByTenant } from './usage-gauges.js';

const SAFETY_KINDS: Readonly<Record<keyof SafetyCounters, string>> = {
  vocabularyFallbacks: 'vocabulary_fallback',
  suspectInsertions: 'suspect_insertion',
  reviewRequired: 'review_required',
  unsupportedLanguage: 'unsupported_language',
};

/** How long one read of the database (job counts, the period's usage) serves scrapes. */
const READ_TTL_MS = 5_000;
/** Methods as labels; anything else is `OTHER` (a client could otherwise invent unbounded ones). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Each engine once, labelled with the model ids it serves (comma-separated, in the order of MODEL_IDS):
 * two ids pointing at one model file share an engine (open-engines.ts), and a series per id would
 * count its workers, calls and work twice in any sum.
 */
function distinctEngines(engines: Partial<Record<ModelId, Engine>>): Array<{ model: string; engine: Engine }> {
  const ids = new Map<Engine, ModelId[]>();
  for (const id of MODEL_IDS) {
    const engine = engines[id];
    if (engine) ids.set(engine, [...(ids.get(engine) ?? []), id]);
  }
  return [...ids].map(([engine, served]) => ({ model: served.join(','), engine }));
}

export interface MetricSources {
  role: ServiceRole;
  jobCounts: (nowMs: number) => Promise<JobCounts>;
  /** The engines this process runs (none for a process without them). */
  engines: () => Partial<Record<ModelId, Engine>>;
  /** The current billing period's totals per tenant and pool (all tenants). */
  usageTotals: () => Promise<PoolTotals[]>;
  /** How many tenants the usage gauges name (config.metricsTenantLabels). */
  tenantLabels: number;
  /** Content values still plain per column, as of this process's last sealing pass; null where none ran. */
  plainContent?: () => Record<string, number> | null;
}

/**
 * A read of the database shared by the gauges filled from it (prom-client collects all metrics at
 * once: the first collector starts the read, the others share it) and serving scrapes for
 * READ_TTL_MS: /metrics needs no key, and a burst of scrapes must not become a burst of queries.
 * A failed read yields null.
 */
function sharedRead<T>(read: (nowMs: number) => Promise<T>): () => Promise<T | null> {
  let reading: Promise<T | null> | null = null;
  let readAt = -Infinity;
  return () => {
    if (reading && Date.now() - readAt < READ_TTL_MS) return reading;
    readAt = Date.now();
    reading = read(readAt).then(
      (value) => value,
      () => null,
    );
    return reading;
  };
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly requestSeconds: Histogram<'route' | 'method' | 'status'>;
  private readonly jobSecondsPerAudioSecond: Histogram<'model'>;
  private readonly jobsFinished: Counter<'outcome'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly meteredAudio: Counter<'route' | 'model'>;
  private readonly safetyEvents: Counter<'kind'>;
  private readonly billingRefusals: Counter<'reason' | 'pool'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ role: sources.role });
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_stt_' });
    this.requests = new Counter({
      name: 'svc_stt_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'svc_stt_http_request_duration_seconds',
      help: 'Time from request to answer, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120],
      registers,
    });
    this.jobSecondsPerAudioSecond = new Histogram({
      name: 'svc_stt_job_processing_seconds_per_audio_second',
      help: 'Wall time a worker spent on a succeeded job, per second of its audio (real-time factor).',
      labelNames: ['model'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers,
    });
    this.jobsFinished = new Counter({
      name: 'svc_stt_jobs_finished_total',
      help: 'Jobs this process brought to an end, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'svc_stt_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    // The ledger's figures as this process records them (summed over processes, they are the
    // ledger's); per tenant they are in `svc-stt usage` and GET /v1/usage, never in labels.
    this.meteredAudio = new Counter({
      name: 'svc_stt_metered_audio_seconds_total',
      help: 'Audio metered by this process, by route and model.',
      labelNames: ['route', 'model'],
      registers,
    });
    this.safetyEvents = new Counter({
      name: 'svc_stt_safety_events_total',
      help: 'Safety counters of metered work, by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.billingRefusals = new Counter({
      name: 'svc_stt_billing_refusals_total',
      help: 'Work refused with billing_blocked, by the limit that blocked it and the pool.',
      labelNames: ['reason', 'pool'],
      registers,
    });

    const readCounts = sharedRead<JobCounts>(sources.jobCounts);
    const readUsage = sharedRead(async () => usageByTenant(await sources.usageTotals(), sources.tenantLabels));
    new Gauge({
      name: 'svc_stt_store_up',
      help: '1 when this scrape could read the database (job counts and usage), else 0.',
      registers,
      async collect() {
        const [counts, usage] = await Promise.all([readCounts(), readUsage()]);
        this.set(counts === null || usage === null ? 0 : 1);
      },
    });
    new Gauge({
      name: 'svc_stt_job_queue_depth',
      help: 'Jobs a worker could claim now (accepted, or running without a live lease).',
      registers,
      async collect() {
        const counts = await readCounts();
        if (counts) this.set(counts.claimable);
      },
    });
    new Gauge({
      name: 'svc_stt_jobs',
      help: 'Jobs in the database by state (all processes).',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await readCounts();
        if (counts) for (const [state, n] of Object.entries(counts.byStatus)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'svc_stt_plain_content_values',
      help: 'Content written before sealing existed and not sealed yet: values by column, job audio and results as "blobs" (counted each pass).',
      labelNames: ['column'],
      registers,
      collect() {
        const left = sources.plainContent?.();
        if (left) for (const [column, n] of Object.entries(left)) this.set({ column }, n);
      },
    });
    // The ledger's figures of the period so far, per tenant (bounded) and pool: what `svc-stt usage`
    // reports, for dashboards and alerts on spend.
    const usageGauge = (name: string, help: string, figure: (usage: PoolTotals) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['tenant', 'pool'],
        registers,
        async collect() {
          const usage = await readUsage();
          if (!usage) return;
          // A new period, or a tenant no longer named: its old series go.
          this.reset();
          for (const u of usage) this.set({ tenant: u.tenant, pool: u.pool }, figure(u));
        },
      });
    usageGauge('svc_stt_usage_period_audio_seconds', 'Audio metered this billing period (all processes), by tenant and pool.', (u) => u.audioMs / 1000);
    usageGauge('svc_stt_usage_period_overage_seconds', 'Audio beyond the allowance this billing period, by tenant and pool.', (u) => u.overageMs / 1000);
    usageGauge(
      'svc_stt_usage_period_cost',
      'Charged for overage this billing period, in currency units, by tenant and pool.',
      (u) => u.costMicros / MICROS_PER_UNIT,
    );
    const engineGauge = (name: string, help: string, read: (stats: Engine['stats']) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model'],
        registers,
        collect() {
          for (const { model, engine } of distinctEngines(sources.engines())) this.set({ model }, read(engine.stats));
        },
      });
    engineGauge('svc_stt_engine_workers', 'Whisper workers of the engine pool.', (s) => s.workers);
    engineGauge('svc_stt_engine_running', 'Calls running on the engine pool.', (s) => s.running);
    engineGauge('svc_stt_engine_queued', 'Calls waiting for an engine worker.', (s) => s.queued);
    engineGauge('svc_stt_engine_utilisation', 'Share of engine workers busy (0 to 1).', (s) => (s.workers > 0 ? s.running / s.workers : 0));
    // The scheduler's queues by work class (work-scheduler.ts): bounded labels, no tenant.
    const eachClass = (engines: Partial<Record<ModelId, Engine>>, record: (labels: { model: string; class: WorkClass }, stats: WorkClassStats) => void) => {
      for (const { model, engine } of distinctEngines(engines)) {
        const classes = engine.stats.classes;
        for (const workClass of WORK_CLASSES) record({ model, class: workClass }, classes[workClass]);
      }
    };
    const classGauge = (name: string, help: string, read: (stats: WorkClassStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model', 'class'],
        registers,
        collect() {
          eachClass(sources.engines(), (labels, stats) => this.set(labels, read(stats)));
        },
      });
    classGauge(
      'svc_stt_engine_class_queued',
      'Engine calls waiting for a worker, by work class (realtime_final, realtime_partial, interactive, batch).',
      (s) => s.queued,
    );
    classGauge(
      'svc_stt_engine_class_oldest_wait_seconds',
      'How long the oldest engine call waiting in each work class has waited (0 when none waits).',
      (s) => s.oldestWaitSeconds,
    );
    // Totals kept by the engine, reported as counters: their rates give the mean wait per class.
    const classCounter = (name: string, help: string, read: (stats: WorkClassStats) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['model', 'class'],
        registers,
        collect() {
          this.reset();
          eachClass(sources.engines(), (labels, stats) => this.inc(labels, read(stats)));
        },
      });
    engineGauge('svc_stt_engine_held', 'Batch calls held while urgent calls run in their place.', (s) => s.held);
    const engineCounter = (name: string, help: string, read: (stats: EngineStats) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['model'],
        registers,
        collect() {
          this.reset();
          for (const { model, engine } of distinctEngines(sources.engines())) this.inc({ model }, read(engine.stats));
        },
      });
    engineCounter('svc_stt_engine_holds_total', 'Times a batch call was held so that an urgent call (realtime, inline) could run at once.', (s) => s.holds);
    engineCounter(
      'svc_stt_engine_lent_total',
      "Idle workers whose threads went to a call that started alone (an inline request's or realtime final's).",
      (s) => s.lent,
    );
    // The work behind the calls: decoder steps per audio second climbing is a decoder looping on its
    // windows (hallucination), before it shows in the text the guard drops.
    engineCounter(
      'svc_stt_engine_encoder_runs_total',
      'Encoder runs of finished transcription calls (one per decoded window of up to 30 s).',
      (s) => s.encoderRuns,
    );
    engineCounter('svc_stt_engine_decoder_steps_total', 'Decoder steps of finished transcription calls (one per decoder per token).', (s) => s.decoderSteps);
    classCounter('svc_stt_engine_class_dispatched_total', 'Engine calls handed to a worker since the engine opened, by work class.', (s) => s.dispatched);
    classCounter('svc_stt_engine_class_wait_seconds_total', 'Seconds engine calls waited for a worker, summed, by work class.', (s) => s.waitSeconds);
  }

  /** One answered request; `route` is the matched template, or null for an unmatched path. */
  observeRequest(route: string | null, method: string, status: number, seconds: number): void {
    const labels = { route: route ?? 'unmatched', method: METHODS.has(method) ? method : 'OTHER', status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  jobSucceeded(model: ModelId, processingSeconds: number, audioSeconds: number): void {
    this.jobsFinished.inc({ outcome: 'succeeded' });
    if (audioSeconds > 0) this.jobSecondsPerAudioSecond.observe({ model }, processingSeconds / audioSeconds);
  }

  jobFailed(): void {
    this.jobsFinished.inc({ outcome: 'failed' });
  }

  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  metered(event: UsageEvent): void {
    this.meteredAudio.inc({ route: event.route, model: event.model }, event.audioMs / 1000);
    this.safetyCounted(event.safety);
  }

  safetyCounted(counters: Partial<SafetyCounters>): void {
    for (const [kind, count] of Object.entries(counters)) if (count > 0) this.safetyEvents.inc({ kind: SAFETY_KINDS[kind as keyof SafetyCounters] }, count);
  }

  billingRefused(reason: BlockReason, pool: UsagePool): void {
    this.billingRefusals.inc({ reason, pool });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
