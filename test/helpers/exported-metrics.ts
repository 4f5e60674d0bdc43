// The series names a real service's /metrics exports, and the metric names a PromQL expression reads:
// for checking what is written against the service (the Grafana dashboard, the Kubernetes recipe's
// autoscaler metric) rather than against a list kept by hand.
import { startTestService } from './test-service.js';

/**
 * Every series name an exposition can hold, from its `# TYPE` lines (a family is declared even before
 * it has a sample): a histogram is read as NAME_bucket, NAME_sum and NAME_count, a summary as NAME,
 * NAME_sum and NAME_count; a counter or gauge by its own name.
 */
export function seriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** Starts a test service with /metrics on a listener of its own (as deploy/kubernetes sets it) and reads it. */
export async function exportedSeriesNames(): Promise<{ names: Set<string>; healthz: number; readyz: number }> {
  const svc = await startTestService({ SVC_METRICS_PORT: '0' });
  try {
    const response = await fetch(`${svc.service.metricsUrl}/metrics`);
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
    const healthz = (await fetch(`${svc.url}/healthz`)).status;
    const readyz = (await fetch(`${svc.url}/readyz`)).status;
    return { names: seriesNames(await response.text()), healthz, readyz };
  } finally {
    await svc.close();
  }
}

const PROMQL_FUNCTIONS_AND_WORDS = /^(by|without|on|ignoring|group_left|group_right|and|or|unless|bool|offset|inf|nan)$/i;

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, range and
 * subquery brackets, grouping clauses, Grafana's $variables and numbers are taken out, less the
 * function names (an identifier followed by a parenthesis) and the operators' keywords.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = match[0];
    const next = stripped.slice(match.index + name.length).trimStart();
    if (next.startsWith('(') || PROMQL_FUNCTIONS_AND_WORDS.test(name)) continue;
    // A number such as 1e3 starts with a digit and never matches; an exponent's `e` alone would.
    if (/^\d/.test(stripped[match.index - 1] ?? '')) continue;
    names.push(name);
  }
  return [...new Set(names)];
}
