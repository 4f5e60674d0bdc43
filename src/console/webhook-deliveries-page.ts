// The deliveries page: the tenant's recent webhook events with their attempts, the last response,
// and the outcome (delivered; retrying, with the next attempt's time; failed), and a redeliver
// button for a settled one. Event metadata only: never the body (it may say when a patient was
// seen) nor the destination's path and query (they may hold the receiver's token): its host alone.
import type { WebhookDeliverySummary } from '../store/webhook-outbox.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type Notice, type PageUser } from './console-layout.js';
import { timeText } from './console-time.js';

/** How many events the page shows, newest first. */
export const DELIVERIES_SHOWN = 50;

const COLUMNS = ['Event and type', 'Job and key', 'Destination', 'Created', 'Attempts and last response', 'Outcome', 'Action'];

export interface DeliveryRow {
  delivery: WebhookDeliverySummary;
  /** Whether the event's key is revoked (its events are not sent again). */
  keyRevoked: boolean;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid)';
  }
}

/** `http 503` as HTTP 503; other summaries (timeout, connection errors, refusals) as they are. */
function lastResponse(d: WebhookDeliverySummary): string {
  if (d.lastStatus === null) return '<span class="muted">none yet</span>';
  const status = /^http (\d{3})$/.exec(d.lastStatus);
  return status ? `HTTP ${status[1]}` : e(d.lastStatus);
}

function outcome(d: WebhookDeliverySummary): string {
  if (d.state === 'delivered') return '<span class="outcome-delivered">delivered</span>';
  if (d.state === 'failed') return '<span class="outcome-failed">failed</span>';
  if (d.redeliveryRequestedAtMs !== null) return 'redelivery queued';
  return `retrying: next attempt ${d.nextAttemptAtMs === null ? 'soon' : timeText(d.nextAttemptAtMs)}`;
}

function redeliverButton(user: PageUser, { delivery: d, keyRevoked }: DeliveryRow): string {
  if (d.state === 'pending') return '';
  if (keyRevoked) return '<span class="muted">key revoked</span>';
  return `<form method="post" action="/webhooks/deliveries/${e(d.eventId)}/redeliver" class="inline">${csrfField(user)}
<button type="submit" aria-label="Redeliver ${e(d.eventId)}">Redeliver</button></form>`;
}

export function webhookDeliveriesPage(user: PageUser, rows: readonly DeliveryRow[], notice: Notice | null): string {
  const body = rows
    .map(
      (row) => `<tr>
<td><code>${e(row.delivery.eventId)}</code><br><span class="muted">${e(row.delivery.eventType)}</span></td>
<td><code>${e(row.delivery.jobId)}</code><br><code class="muted">${e(row.delivery.keyId)}</code></td>
<td>${e(hostOf(row.delivery.url))}</td>
<td>${timeText(row.delivery.createdAtMs)}</td>
<td>${row.delivery.attempts} · ${lastResponse(row.delivery)}</td>
<td>${outcome(row.delivery)}</td>
<td>${redeliverButton(user, row)}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    'Webhook deliveries',
    `<p>The newest ${DELIVERIES_SHOWN} events of your keys. A failed attempt is tried again after 1 minute, 5 minutes, 30 minutes,
2 hours and 8 hours. <strong>Redeliver</strong> sends a delivered or failed event once more, soon, with the same
<code>webhook-id</code> (receivers deduplicate by it), signed with the secrets that sign at that moment.</p>
<div class="scroll"><table class="deliveries">
<caption class="muted">Event metadata only: never the payload, nor the destination's path.</caption>
<thead><tr>${COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>
<tbody>
${body || `<tr><td colspan="${COLUMNS.length}">No webhook events yet.</td></tr>`}
</tbody>
</table></div>`,
    user,
    notice,
  );
}
