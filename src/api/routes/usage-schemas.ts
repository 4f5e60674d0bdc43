// The route schema of GET /v1/usage.
import { BEARER } from '../openapi-document.js';
import { answerHeaders, errorResponses } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { RouteSchema } from '../openapi-types.js';

export const GET_USAGE_SCHEMA: RouteSchema = {
  operationId: 'getUsage',
  summary: "The key's tenant's usage in the current billing period",
  description:
    'Audio metered per key, route, model and language family (counters only), the terms each key is billed under, ' +
    'its charges, spend cap and prepaid credit, and whether new work is refused (402 billing_blocked) and until when. ' +
    'A key reads its own tenant only: any other `tenant` is 404.',
  tags: ['usage'],
  security: BEARER,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { tenant: { type: 'string', maxLength: 128, description: "The key's own tenant (the default); any other is 404." } },
  },
  response: {
    '200': { description: 'The current period for the tenant.', headers: answerHeaders(), content: { 'application/json': { schema: ref('Usage') } } },
    ...errorResponses([400, 404]),
  },
};
