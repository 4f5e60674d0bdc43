// Syntactic destination rules for webhook_url, checked at request time: HTTPS, no user information,
// no fragment, at most 2,048 characters. The port and the addresses are the webhooks feature's
// (src/webhooks/validate-destination.ts): with SVC_WEBHOOK_ALLOW_LOOPBACK a loopback destination
// may use any port, which only the resolved addresses can tell.
import { UnprocessableRequest } from '../pipeline/pipeline-errors.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookUrlSyntax = { ok: true; url: URL } | { ok: false; problem: string };

/** The parsed URL, or what is wrong with it as a phrase completing "webhook_url …". */
export function checkWebhookUrlSyntax(raw: string): WebhookUrlSyntax {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, problem: `is at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: 'must use https' };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'must not contain user information' };
  // On the raw text: the parser drops an empty fragment ("…/hook#"), which is still a fragment.
  if (raw.includes('#')) return { ok: false, problem: 'must not contain a fragment' };
  return { ok: true, url };
}

export function validateWebhookUrl(raw: string): string {
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) throw new UnprocessableRequest(`webhook_url ${syntax.problem}`);
  return syntax.url.href;
}
