// Syntactic destination rules for webhook_url, checked at request time: HTTPS, port 443, no user
// information, no fragment, at most 2,048 characters. (Address checks happen at delivery time too,
// with the webhooks feature.)
import { ApiError } from '../api/api-error.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const unprocessable = (message: string) => new ApiError(422, 'invalid_request', message);

export function validateWebhookUrl(raw: string): string {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw unprocessable(`webhook_url is at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw unprocessable('webhook_url must be an absolute URL');
  }
  if (url.protocol !== 'https:') throw unprocessable('webhook_url must use https');
  if (url.port !== '' && url.port !== '443') throw unprocessable('webhook_url must use port 443');
  if (url.username !== '' || url.password !== '') throw unprocessable('webhook_url must not contain user information');
  if (raw.includes('#')) throw unprocessable('webhook_url must not contain a fragment');
  return url.href;
}
