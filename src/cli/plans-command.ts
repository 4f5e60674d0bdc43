// svc-stt plans list | update PLAN | reset PLAN | start-day N: what each plan includes and costs, and
// the day billing periods start, in the service database (every server process reads it per request).
import { billingPeriodAt } from '../billing/billing-period.js';
import { DEFAULT_PLAN_TERMS, resolveTerms } from '../billing/billing-terms.js';
import { termsJson } from '../billing/usage-report-json.js';
import { type Plan, PLANS } from '../domain/api-keys.js';
import { validatePlan } from '../store/key-validation.js';
import { withBillingSettings } from './admin-stores.js';
import { hours, money, TERM_FLAGS_USAGE, TERM_OPTIONS, termsPatchOf } from './billing-amounts.js';
import type { CommandOutput } from './command-output.js';
import { parseCommandArgs } from './parse-command-args.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { textTable } from './text-table.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt plans list [--json]
       npx svc-stt plans update PLAN [--json] ${TERM_FLAGS_USAGE}
       npx svc-stt plans reset PLAN
       npx svc-stt plans start-day DAY     (billing periods start on this day of the month, 1 to 28, UTC)`;

export async function runPlansCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(PLANS_SUBCOMMANDS, argv, out, USAGE);
}

export const PLANS_SUBCOMMANDS: Subcommands = { list: listPlans, update: updatePlan, reset: resetPlan, 'start-day': setStartDay };

async function listPlans(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false } });
  if (positionals.length > 0) throw new UsageError(`plans list takes no arguments\n${USAGE}`);
  const { overrides, startDay } = await withBillingSettings(async (settings) => ({
    overrides: await settings.planOverrides(),
    startDay: await settings.periodStartDay(),
  }));
  const plans = PLANS.map((plan) => ({ plan, terms: resolveTerms(plan, overrides[plan], {}), changed: Object.keys(overrides[plan] ?? {}).length > 0 }));
  const period = billingPeriodAt(Date.now(), startDay);
  if (values.json) {
    const listed = plans.map((p) => ({ plan: p.plan, ...termsJson(p.terms), changed: p.changed }));
    out.write(`${JSON.stringify({ period_start_day: startDay, current_period: period.label, plans: listed })}\n`);
    return;
  }
  out.write(
    textTable(
      ['plan', 'batch h', 'realtime h', 'batch price/h', 'realtime price/h', 'spend cap', 'session h', 'changed'],
      plans.map((p) => [
        p.plan,
        hours(p.terms.batchIncludedMs),
        hours(p.terms.realtimeIncludedMs),
        money(p.terms.batchPriceMicros),
        money(p.terms.realtimePriceMicros),
        money(p.terms.spendCapMicros),
        hours(p.terms.realtimeSessionMaxMs),
        p.changed ? 'yes' : 'no',
      ]),
    ) + `periods start on day ${startDay} of the month (UTC); the current one is ${period.label}, until ${new Date(period.endMs).toISOString()}\n`,
  );
}

async function updatePlan(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false }, ...TERM_OPTIONS });
  const plan = singlePlan(positionals, 'update');
  const patch = termsPatchOf(values);
  if (Object.keys(patch).length === 0) throw new UsageError(`plans update: nothing to change\n${USAGE}`);
  const overrides = await withBillingSettings((settings) => settings.updatePlan(plan, patch));
  const terms = resolveTerms(plan, overrides, {});
  out.write(values.json ? `${JSON.stringify({ plan, ...termsJson(terms) })}\n` : `updated plan ${plan}: ${describe(terms)}\n`);
}

async function resetPlan(argv: string[], out: CommandOutput): Promise<void> {
  const { positionals } = parseCommandArgs(argv, USAGE, {});
  const plan = singlePlan(positionals, 'reset');
  await withBillingSettings((settings) => settings.resetPlan(plan));
  out.write(`plan ${plan} is back to its built-in terms: ${describe(DEFAULT_PLAN_TERMS[plan])}\n`);
}

async function setStartDay(argv: string[], out: CommandOutput): Promise<void> {
  const { positionals } = parseCommandArgs(argv, USAGE, {});
  if (positionals.length !== 1 || !/^\d{1,2}$/.test(positionals[0])) throw new UsageError(`plans start-day takes one day of the month (1 to 28)\n${USAGE}`);
  const day = Number(positionals[0]);
  await withBillingSettings((settings) => settings.setPeriodStartDay(day));
  out.write(`billing periods start on day ${day} of the month (UTC)\n`);
}

function describe(terms: ReturnType<typeof resolveTerms>): string {
  return (
    `batch ${hours(terms.batchIncludedMs)} h then ${money(terms.batchPriceMicros)}/h, ` +
    `realtime ${hours(terms.realtimeIncludedMs)} h then ${money(terms.realtimePriceMicros)}/h, ` +
    `spend cap ${money(terms.spendCapMicros)}, realtime sessions up to ${hours(terms.realtimeSessionMaxMs)} h`
  );
}

function singlePlan(positionals: string[], command: string): Plan {
  if (positionals.length !== 1) throw new UsageError(`plans ${command} takes one plan (${PLANS.join(', ')})\n${USAGE}`);
  try {
    return validatePlan(positionals[0]);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
