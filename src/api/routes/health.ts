// Health and metrics, on every role, without a key (a load balancer or Prometheus has none):
//   GET /healthz  the process is alive and its event loop turns (nothing else is consulted);
//   GET /readyz   it can serve now: each of its checks (database, storage, engine for processes that
//                 run one) answered within READY_CHECK_TIMEOUT_MS; 503 otherwise, and while it
//                 shuts down (the draining hook answers every request then);
//   GET /metrics  Prometheus text, unless the operator moved it to its own listener.
// Answers name checks and their state only: never an error message (it could carry a host name or
// a connection string), which goes to the log instead.
import type { FastifyInstance } from 'fastify';

export const READY_CHECK_TIMEOUT_MS = 2_000;

export interface MetricsText {
  readonly contentType: string;
  render(): Promise<string>;
}

export interface HealthDeps {
  role: string;
  /** This process's instance id (the prefix of the leases it holds): lets an operator match a process to its work. */
  instance: string;
  /** By name: resolves when that dependency can serve, rejects (or times out) when not. */
  checks: Record<string, () => Promise<void>>;
  /** Served at /metrics on this listener; null when it has a listener of its own. */
  metrics: MetricsText | null;
}

export function healthRoutes(deps: HealthDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    const open = { config: { public: true } };
    app.get('/healthz', open, async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ status: 'ok', role: deps.role, instance: deps.instance }),
    );
    app.get('/readyz', open, async (request, reply) => {
      const names = Object.keys(deps.checks);
      const outcomes = await Promise.all(names.map((name) => withinTimeout(deps.checks[name]())));
      const checks: Record<string, 'ok' | 'unavailable'> = {};
      names.forEach((name, i) => {
        const outcome = outcomes[i];
        checks[name] = outcome === null ? 'ok' : 'unavailable';
        if (outcome !== null) request.log.warn({ check: name, err: outcome }, 'readiness check failed');
      });
      const ready = outcomes.every((outcome) => outcome === null);
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'not_ready', role: deps.role, checks });
    });
    const metrics = deps.metrics;
    if (metrics) {
      app.get('/metrics', open, async (_request, reply) =>
        reply
          .header('cache-control', 'no-store')
          .type(metrics.contentType)
          .send(await metrics.render()),
      );
    }
  };
}

/** null when `check` resolved in time; else why not. */
async function withinTimeout(check: Promise<void>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${READY_CHECK_TIMEOUT_MS} ms`)), READY_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      check.then(
        () => null,
        (error: unknown) => error ?? new Error('check failed'),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
