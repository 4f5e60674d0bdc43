// The route schemas of GET /v1/models and GET /v1/models/{model}.
import { BEARER } from '../openapi-document.js';
import { answerHeaders, errorResponses } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { RouteSchema } from '../openapi-types.js';

export const LIST_MODELS_SCHEMA: RouteSchema = {
  operationId: 'listModels',
  summary: 'The models this server answers to (OpenAI list shape)',
  tags: ['models'],
  security: BEARER,
  response: {
    '200': {
      description: 'Both model ids, with the file serving each.',
      headers: answerHeaders(),
      content: { 'application/json': { schema: ref('ModelList') } },
    },
    ...errorResponses([]),
  },
};

export const RETRIEVE_MODEL_SCHEMA: RouteSchema = {
  operationId: 'retrieveModel',
  summary: 'One model',
  tags: ['models'],
  security: BEARER,
  params: { type: 'object', required: ['model'], properties: { model: { type: 'string' } } },
  response: {
    '200': { description: 'The model.', headers: answerHeaders(), content: { 'application/json': { schema: ref('Model') } } },
    ...errorResponses([404]),
  },
};
