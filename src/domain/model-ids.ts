// The models the service answers to: the names clients send as `model` and the configuration maps to
// model files. Declared here, on the lowest floor, because configuration, stores, the pipeline and the
// API all speak of them.

export const MODEL_IDS = ['svc-medical-1', 'svc-medical-edge-1'] as const;
export type ModelId = (typeof MODEL_IDS)[number];

/** The flagship model: what a request, a realtime session or a job names when it names none. */
export const FLAGSHIP_MODEL = 'svc-medical-1' satisfies ModelId;
/** The edge model: by default the flagship's own file (one shared engine). */
export const EDGE_MODEL = 'svc-medical-edge-1' satisfies ModelId;

export function isModelId(value: unknown): value is ModelId {
  return (MODEL_IDS as readonly unknown[]).includes(value);
}

/** The model a job's envelope names: the service's, whichever engine (`request.model`) transcribes it. */
export const JOB_MODEL = FLAGSHIP_MODEL;
