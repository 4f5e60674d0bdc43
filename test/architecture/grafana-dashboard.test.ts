// The Grafana dashboard (deploy/grafana/svc-stt.json), checked without Grafana (none runs here): it is
// Grafana's dashboard JSON model on a Prometheus datasource variable, and every metric its PromQL reads
// is one a started service's /metrics really exports (histograms as _bucket, _sum and _count), so a
// renamed metric breaks the suite rather than a panel. It covers what operators watch: the queue, waits
// per work class, the engine's work, realtime, jobs by state, usage and webhooks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { exportedSeriesNames, promqlMetricNames, seriesNames } from '../helpers/exported-metrics.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
  panels?: Panel[];
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string }> };
}

const dashboard = JSON.parse(readFileSync(`${ROOT}/deploy/grafana/svc-stt.json`, 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const queries = panels.filter((panel) => panel.type !== 'row');

t.test('PromQL metric names: functions, labels, ranges, groupings and numbers are not metrics', async (t) => {
  t.same(promqlMetricNames('histogram_quantile(0.95, sum by (le, route) (rate(a_bucket{route=~"x_y"}[$__rate_interval])))'), ['a_bucket']);
  t.same(promqlMetricNames('sum(rate(a_total[5m])) / sum without (pod) (b) * 1e3 > bool 0.5'), ['a_total', 'b']);
  t.same(promqlMetricNames('max(c) and on (job) d offset 5m'), ['c', 'd']);
  t.same([...seriesNames('# HELP h x\n# TYPE h histogram\n# TYPE g gauge\n# TYPE s summary\n')].sort(), [
    'g',
    'h_bucket',
    'h_count',
    'h_sum',
    's',
    's_count',
    's_sum',
  ]);
});

t.test("Grafana's dashboard model on a Prometheus datasource variable", async (t) => {
  t.equal(dashboard.uid, 'svc-stt');
  t.ok(Number.isInteger(dashboard.schemaVersion) && dashboard.schemaVersion >= 36, `schemaVersion ${dashboard.schemaVersion}`);
  t.match(dashboard.templating.list, [{ name: 'datasource', type: 'datasource', query: 'prometheus' }]);
  t.equal(new Set(panels.map((panel) => panel.id)).size, panels.length, 'panel ids are unique');
  t.ok(queries.length >= 20, `${queries.length} panels`);
  for (const panel of panels) {
    const { x, w } = panel.gridPos;
    t.ok(x >= 0 && w > 0 && x + w <= 24, `${panel.title}: within the 24-column grid`);
  }
  for (const panel of queries) {
    t.same(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, `${panel.title}: on the datasource variable`);
    t.ok(panel.targets && panel.targets.length > 0, `${panel.title}: has queries`);
    for (const target of panel.targets ?? []) {
      t.ok(target.expr.trim(), `${panel.title} ${target.refId}: an expression`);
      t.same(target.datasource, panel.datasource);
    }
    t.equal(new Set(panel.targets?.map((target) => target.refId)).size, panel.targets?.length, `${panel.title}: refIds are unique`);
  }
});

t.test('every metric the dashboard reads is one a running service exports', async (t) => {
  const { names: exported } = await exportedSeriesNames();
  const read = new Set<string>();
  for (const panel of queries) {
    for (const target of panel.targets ?? []) {
      const names = promqlMetricNames(target.expr);
      t.ok(names.length > 0, `${panel.title}: ${target.expr} reads a metric`);
      for (const name of names) {
        t.ok(exported.has(name), `${panel.title}: ${name} is exported by /metrics`);
        read.add(name);
      }
    }
  }
  // What the dashboard is for (issue 50): each of these is read by some panel.
  for (const name of [
    'svc_stt_job_queue_depth',
    'svc_stt_engine_class_queued',
    'svc_stt_engine_class_oldest_wait_seconds',
    'svc_stt_engine_class_wait_seconds_total',
    'svc_stt_engine_class_dispatched_total',
    'svc_stt_engine_encoder_runs_total',
    'svc_stt_engine_decoder_steps_total',
    'svc_stt_jobs',
    'svc_stt_jobs_finished_total',
    'svc_stt_job_processing_seconds_per_audio_second_bucket',
    'svc_stt_usage_period_audio_seconds',
    'svc_stt_metered_audio_seconds_total',
    'svc_stt_webhook_attempts_total',
    'svc_stt_http_request_duration_seconds_bucket',
  ]) {
    t.ok(read.has(name), `a panel reads ${name}`);
  }
});
