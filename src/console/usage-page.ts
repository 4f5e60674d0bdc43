// The usage page: a period's audio of every key of the tenant. For the current period, what would be
// refused next and when that lifts (the billing decision the API makes, from UsageBilling.status),
// the allowances as bars, each key's spend against its cap and its prepaid credit; for any period,
// audio per day by route and pool (a chart and the same figures as a table, and a CSV of them), and
// each key's share. Earlier periods are a link away.
import type { BlockReason, NextRefusal } from '../billing/billing-decision.js';
import { blockDescription } from '../billing/billing-errors.js';
import type { BillingPeriod } from '../billing/billing-period.js';
import type { KeyUsage, TenantUsage } from '../billing/usage-report.js';
import { poolOf, USAGE_POOLS, USAGE_ROUTES, type UsagePool } from '../domain/usage-routes.js';
import { type DailyUsage } from '../store/usage-record.js';
import { escapeHtml as e } from './console-http.js';
import { layout, type PageUser } from './console-layout.js';
import { dailyChart, seriesName } from './usage-chart.js';
import { audioText, audioUnit, dateText, daysBetween, dayText, hoursText, moneyText } from './usage-figures.js';

export interface UsageView {
  period: BillingPeriod;
  /** Whether `period` is the current one (what is refused and spent is told of it only). */
  current: boolean;
  /** The labels of the periods before and after it (null after the current one). */
  previous: string;
  next: string | null;
  nowMs: number;
  /** The tenant's report (null: no key and no usage yet). */
  usage: TenantUsage | null;
  daily: readonly DailyUsage[];
}

const POOL_NAMES: Record<UsagePool, string> = { batch: 'Batch', realtime: 'Realtime' };
const routesOf = (pool: UsagePool) => USAGE_ROUTES.filter((route) => poolOf(route) === pool).join(', ');
const headings = (names: readonly string[]) => `<tr>${names.map((name) => `<th scope="col">${name}</th>`).join('')}</tr>`;
const ids = (keys: readonly KeyUsage[]) => keys.map((k) => k.key.id).join(', ');

/** Keys grouped by what `of` says of them (most keys share their terms: one group). */
function groupsOf<T>(keys: readonly KeyUsage[], of: (k: KeyUsage) => T): Array<{ value: T; keys: KeyUsage[] }> {
  const groups = new Map<string, { value: T; keys: KeyUsage[] }>();
  for (const k of keys) {
    const value = of(k);
    const id = JSON.stringify(value);
    const group = groups.get(id) ?? { value, keys: [] };
    group.keys.push(k);
    groups.set(id, group);
  }
  return [...groups.values()];
}

function until(resetsAtMs: number | null): string {
  return resetsAtMs === null ? '; only an operator can lift it' : `, until ${dateText(resetsAtMs)}, 00:00 UTC`;
}

function refusalSentence(pool: UsagePool, refusal: (NextRefusal & { resetsAtMs: number | null }) | null): string {
  const name = POOL_NAMES[pool];
  if (refusal === null) return `Nothing refuses ${pool} audio this period.`;
  const why = blockDescription(refusal.reason satisfies BlockReason, pool, null);
  if (refusal.afterMs === 0) return `New ${pool} audio is refused now: ${why}${until(refusal.resetsAtMs)}.`;
  return `${name} audio: ${hoursText(refusal.afterMs)} more is accepted; beyond that it is refused because ${why}${until(refusal.resetsAtMs)}.`;
}

function refusals(active: readonly KeyUsage[]): string {
  if (active.length === 0) return '<p>There is no active key: every request is refused until a key is created.</p>';
  const items = USAGE_POOLS.flatMap((pool) => {
    const groups = groupsOf(active, (k) => k.nextRefusal[pool]);
    return groups.map((g) => `<li>${e(refusalSentence(pool, g.value))}${groups.length > 1 ? ` <span class="muted">(keys ${e(ids(g.keys))})</span>` : ''}</li>`);
  });
  return `<ul class="refusals">${items.join('\n')}</ul>`;
}

function allowanceBar(pool: UsagePool, usedMs: number, k: KeyUsage, id: string, keysNote: string): string {
  const included = pool === 'batch' ? k.terms.batchIncludedMs : k.terms.realtimeIncludedMs;
  const price = pool === 'batch' ? k.terms.batchPriceMicros : k.terms.realtimePriceMicros;
  const beyond = price === null ? 'beyond it, refused (no overage on this plan)' : `beyond it, ${moneyText(price)} per audio-hour`;
  const label = `<span class="label" id="${id}-label">${POOL_NAMES[pool]} <span class="muted">(${e(routesOf(pool))})</span>${keysNote}</span>`;
  if (included === null) return `<div class="allowance">${label}<p>${hoursText(usedMs)} used; no allowance limit.</p></div>`;
  const share = included === 0 ? '' : ` (${((100 * usedMs) / included).toFixed(1)} %)`;
  const unit = audioUnit(usedMs, included);
  const used = `${audioText(usedMs, unit)} of ${audioText(included, unit)}`;
  return `<div class="allowance">${label}
<meter id="${id}" aria-labelledby="${id}-label" min="0" max="${Math.max(included, 1)}" high="${Math.round(included * 0.8)}" optimum="0"
 value="${Math.min(usedMs, included)}">${used}</meter>
<p>${used} used${share}; ${beyond}.</p></div>`;
}

function allowances(usage: TenantUsage, active: readonly KeyUsage[]): string {
  if (active.length === 0) return '';
  return USAGE_POOLS.flatMap((pool) => {
    const groups = groupsOf(active, (k) =>
      pool === 'batch' ? [k.terms.batchIncludedMs, k.terms.batchPriceMicros] : [k.terms.realtimeIncludedMs, k.terms.realtimePriceMicros],
    );
    return groups.map((g, i) =>
      allowanceBar(
        pool,
        usage.usedMs[pool],
        g.keys[0],
        `allowance-${pool}-${i}`,
        groups.length > 1 ? ` <span class="muted">keys ${e(ids(g.keys))}</span>` : '',
      ),
    );
  }).join('\n');
}

function spendRows(active: readonly KeyUsage[]): string {
  return active
    .map((k) => {
      const cap = k.terms.spendCapMicros;
      const spent = cap === null ? '' : `${moneyText(k.costMicros)} of ${moneyText(cap)}`;
      const capCell =
        cap === null
          ? 'none'
          : `<meter aria-label="Spend of ${e(k.key.id)} against its cap" min="0" max="${Math.max(cap, 1)}"
 value="${Math.min(k.costMicros, cap)}">${spent}</meter> ${spent}`;
      const credit = k.creditLeftMicros === null ? 'not prepaid' : moneyText(k.creditLeftMicros);
      return `<tr><td><code>${e(k.key.id)}</code></td><td>${e(k.key.plan)}</td><td>${moneyText(k.costMicros)}</td><td>${capCell}</td><td>${credit}</td></tr>`;
    })
    .join('\n');
}

function dailyRows(daily: readonly DailyUsage[]): string {
  const unit = audioUnit(...daily.map((d) => d.audioMs));
  return daily
    .map((d) => `<tr><td>${e(dayText(d.day))}</td><td>${e(d.route)}</td><td>${e(d.pool)}</td><td>${d.units}</td><td>${audioText(d.audioMs, unit)}</td></tr>`)
    .join('\n');
}

function keyRows(keys: readonly KeyUsage[]): string {
  // One unit for the table's three audio columns, chosen by its largest figure.
  const unit = audioUnit(...keys.flatMap((k) => [k.audioMs.batch, k.audioMs.realtime, k.overageMs]));
  return keys
    .map(
      (k) => `<tr><td><code>${e(k.key.id)}</code></td><td>${k.key.revokedAt === null ? 'active' : 'revoked'}</td><td>${audioText(k.audioMs.batch, unit)}</td>
<td>${audioText(k.audioMs.realtime, unit)}</td><td>${audioText(k.overageMs, unit)}</td><td>${moneyText(k.costMicros)}</td></tr>`,
    )
    .join('\n');
}

/**
 * A table's box that scrolls sideways on a narrow screen instead of widening the page: focusable, so a
 * keyboard can scroll it, and named by its section's heading.
 */
function scrollOpen(headingId: string): string {
  return `<div class="scroll" tabindex="0" role="region" aria-labelledby="${headingId}">`;
}

function periodLinks(view: UsageView): string {
  const link = (label: string, text: string) => `<a href="/usage?period=${e(label)}">${text}</a>`;
  const next = view.next === null ? '' : ` ${link(view.next, `Next period (${e(view.next)})`)}`;
  return `<nav aria-label="Billing periods" class="periods">${link(view.previous, `Previous period (${e(view.previous)})`)}${next}</nav>`;
}

/** What is refused now, the allowances and spend: of the current period only. */
function standing(usage: TenantUsage | null, active: readonly KeyUsage[]): string {
  const none = (columns: number, text: string) => `<tr><td colspan="${columns}">${text}</td></tr>`;
  return `<section aria-labelledby="refused"><h2 id="refused">What would be refused</h2>
${refusals(active)}</section>
<section aria-labelledby="allowances" class="usage"><h2 id="allowances">Allowances</h2>
<p class="muted">Shared by the tenant's keys; counted in audio hours.</p>
${usage ? allowances(usage, active) : '<p>No key yet.</p>'}</section>
<section aria-labelledby="spend"><h2 id="spend">Spend cap and credit</h2>
${scrollOpen('spend')}<table>
<caption class="muted">Charged this period: audio beyond the allowance, in currency units.</caption>
<thead>${headings(['Key', 'Plan', 'Charged', 'Spend cap', 'Prepaid credit left'])}</thead>
<tbody>
${spendRows(active) || none(5, 'No active key.')}
</tbody>
</table></div></section>`;
}

export function usagePage(user: PageUser, view: UsageView): string {
  const { period, usage, daily } = view;
  const keys = usage?.keys ?? [];
  const active = keys.filter((k) => k.key.revokedAt === null);
  const lastDay = Math.min(view.nowMs, period.endMs - 1);
  const none = (columns: number, text: string) => `<tr><td colspan="${columns}">${text}</td></tr>`;
  const csv = view.current ? '/usage.csv' : `/usage.csv?period=${e(period.label)}`;
  const resets = view.current ? `Allowances and spend caps reset on <strong>${dateText(period.endMs)}, 00:00 UTC</strong>.` : 'This period is closed.';
  return layout(
    view.current ? 'Usage' : `Usage of ${period.label}`,
    `<p>Period <strong>${e(period.label)}</strong>: ${dateText(period.startMs)} to ${dateText(period.endMs)} (UTC), every key of ${e(user.tenant)}.
${resets}</p>
${periodLinks(view)}
<p><a href="${csv}" download>Download the daily figures (CSV)</a></p>
${view.current ? standing(usage, active) : ''}
<section aria-labelledby="per-day" class="usage"><h2 id="per-day">Audio per day</h2>
${dailyChart(daysBetween(period.startMs, lastDay), daily)}
${scrollOpen('per-day')}<table>
<caption class="muted">The chart's figures: ${e(USAGE_ROUTES.map(seriesName).join(', '))}.</caption>
<thead>${headings(['Day (UTC)', 'Route', 'Pool', 'Units of work', 'Audio'])}</thead>
<tbody>
${dailyRows(daily) || none(5, 'No audio in the period yet.')}
</tbody>
</table></div></section>
<section aria-labelledby="per-key"><h2 id="per-key">By key</h2>
${scrollOpen('per-key')}<table>
<thead>${headings(['Key', 'Status', 'Batch', 'Realtime', 'Overage', 'Charged'])}</thead>
<tbody>
${keyRows(keys) || none(6, 'No key yet.')}
</tbody>
</table></div></section>`,
    user,
  );
}
