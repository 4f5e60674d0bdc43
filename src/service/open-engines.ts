// One engine per distinct model file behind the API's model ids: when svc-medical-edge-1 points at
// the same file as svc-medical-1 they share one engine (one copy of the weights, one queue).
import { basename } from 'node:path';

import type { ServiceConfig } from '../config/service-config.js';
import { EDGE_MODEL, FLAGSHIP_MODEL, type ModelId } from '../domain/model-ids.js';
import type { EngineWork } from '../domain/work-classes.js';
import { Engine } from '../engine/engine.js';
import { type PipelineEngines, type PipelineStages, pipelineStages } from '../pipeline/pipeline-engine.js';

export interface OpenedEngines {
  engines: Record<ModelId, Engine>;
  /** The pipeline's calls on those engines, with the VAD unless the operator turned it off. */
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  /** Throws once close() has begun (the readiness probe's engine check). */
  assertOpen(): void;
  close(): Promise<void>;
}

export class EnginesClosedError extends Error {
  constructor() {
    super('the engines are closed');
    this.name = 'EnginesClosedError';
  }
}

export async function openEngines(config: ServiceConfig): Promise<OpenedEngines> {
  const byFile = new Map<string, Engine>();
  const open = async (file: string) => {
    let engine = byFile.get(file);
    if (!engine) {
      engine = await Engine.open({
        model: file,
        ...config.pool,
        wordAlignment: config.wordAlignment,
        ...(config.vad.enabled ? { vadModel: config.vad.model } : {}),
      });
      byFile.set(file, engine);
    }
    return engine;
  };
  try {
    const main = await open(config.models[FLAGSHIP_MODEL]);
    const edge = await open(config.models[EDGE_MODEL]);
    const build = (engine: Engine, file: string) => `whisper.cpp-1.9.1/${engine.header.arch}-${engine.header.weightType}/${basename(file)}`;
    const stageOptions = { vad: config.vad.enabled };
    let closed = false;
    return {
      engines: { [FLAGSHIP_MODEL]: main, [EDGE_MODEL]: edge },
      stages: {
        [FLAGSHIP_MODEL]: (work) => pipelineStages(main, stageOptions, work),
        [EDGE_MODEL]: (work) => pipelineStages(edge, stageOptions, work),
      },
      modelBuilds: {
        [FLAGSHIP_MODEL]: build(main, config.models[FLAGSHIP_MODEL]),
        [EDGE_MODEL]: build(edge, config.models[EDGE_MODEL]),
      },
      assertOpen: () => {
        if (closed) throw new EnginesClosedError();
      },
      close: async () => {
        closed = true;
        await Promise.all([...byFile.values()].map((e) => e.close()));
      },
    };
  } catch (error) {
    await Promise.all([...byFile.values()].map((e) => e.close()));
    throw error;
  }
}

/** The engines with each model's stages passed through `wrap` (StartOptions.wrapStages); as they are without one. */
export function withWrappedStages(engines: OpenedEngines, wrap: ((stages: PipelineStages) => PipelineStages) | undefined): OpenedEngines {
  if (!wrap) return engines;
  const stages = Object.fromEntries(Object.entries(engines.stages).map(([model, of]) => [model, (work: EngineWork) => wrap(of(work))]));
  return { ...engines, stages: stages as PipelineEngines };
}
