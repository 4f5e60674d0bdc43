// GET /v1/models and GET /v1/models/{model}: the models this service answers to, in OpenAI's list
// shape (`id`, `object`, `created`, `owned_by`), each with what serves it here: the ggml file, the
// build string results carry in `metadata.model_build`, and whether its engine is loaded now.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { MODEL_IDS, type ModelId } from '../../pipeline/transcription-request.js';
import { ApiError } from '../api-error.js';
import type { Schema } from '../openapi-types.js';

export const MODELS_PATH = '/v1/models';
export const MODEL_OWNER = 'svc-stt';

export interface ModelRouteDeps {
  /** The model file serving each id (both ids may share one file). */
  files: Record<ModelId, string>;
  /** `metadata.model_build` of each id's results. */
  builds: Record<ModelId, string>;
  /** Whether the engines are open (false once shutdown has begun). */
  loaded: () => boolean;
}

export const MODEL_SCHEMA: Schema = {
  type: 'object',
  description: "OpenAI's model object, with what serves the model on this server.",
  required: ['id', 'object', 'created', 'owned_by', 'file', 'model_build', 'loaded'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', enum: [...MODEL_IDS] },
    object: { type: 'string', const: 'model' },
    created: { type: 'integer', description: 'Unix seconds: when the model file was last written.' },
    owned_by: { type: 'string', const: MODEL_OWNER },
    file: { type: 'string', description: 'The ggml file serving this model (its name, not its path).' },
    model_build: { type: 'string', description: 'As in results\' `metadata.model_build`.' },
    loaded: { type: 'boolean', description: 'Its engine is open and takes work.' },
  },
};

export const MODEL_LIST_SCHEMA: Schema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: MODEL_SCHEMA } },
};

export function modelRoutes(deps: ModelRouteDeps) {
  // A file's time is read once: the engines keep the file they opened at start.
  const created = Object.fromEntries(MODEL_IDS.map((id) => [id, Math.floor(statSync(deps.files[id]).mtimeMs / 1000)])) as Record<ModelId, number>;
  const modelObject = (id: ModelId) => ({
    id,
    object: 'model',
    created: created[id],
    owned_by: MODEL_OWNER,
    file: basename(deps.files[id]),
    model_build: deps.builds[id],
    loaded: deps.loaded(),
  });
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(MODELS_PATH, async () => ({ object: 'list', data: MODEL_IDS.map(modelObject) }));
    app.get<{ Params: { model: string } }>(`${MODELS_PATH}/:model`, async (request) => {
      const id = MODEL_IDS.find((m) => m === request.params.model);
      if (!id) throw new ApiError(404, 'not_found', `no such model: this server has ${MODEL_IDS.join(' and ')}`);
      return modelObject(id);
    });
  };
}
