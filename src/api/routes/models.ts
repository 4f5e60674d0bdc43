// GET /v1/models and GET /v1/models/{model}: the models this service answers to, in OpenAI's list
// shape (`id`, `object`, `created`, `owned_by`), each with what serves it here: the ggml file, the
// build string results carry in `metadata.model_build`, and whether its engine is loaded now.
import { statSync } from 'node:fs';
import { basename } from 'node:path';

import type { FastifyInstance } from 'fastify';

import { MODEL_OWNER } from '../../contract/transcription-request.js';
import { MODEL_IDS, type ModelId } from '../../domain/model-ids.js';
import { API_REFUSALS } from '../api-refusals.js';
import { LIST_MODELS_SCHEMA, RETRIEVE_MODEL_SCHEMA } from './model-schemas.js';
export const MODELS_PATH = '/v1/models';

export interface ModelRouteDeps {
  /** The model file serving each id (both ids may share one file). */
  files: Record<ModelId, string>;
  /** `metadata.model_build` of each id's results. */
  builds: Record<ModelId, string>;
  /** Whether the engines are open (false once shutdown has begun). */
  loaded: () => boolean;
}

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
    app.get(MODELS_PATH, { schema: LIST_MODELS_SCHEMA }, async () => ({ object: 'list', data: MODEL_IDS.map(modelObject) }));
    app.get<{ Params: { model: string } }>(`${MODELS_PATH}/:model`, { schema: RETRIEVE_MODEL_SCHEMA }, async (request) => {
      const id = MODEL_IDS.find((m) => m === request.params.model);
      if (!id) throw API_REFUSALS.unknownModel();
      return modelObject(id);
    });
  };
}
