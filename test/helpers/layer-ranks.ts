// The layers of src/ (docs/DESIGN.md "Layout"), for the architecture tests that check them.

/**
 * Each folder under src/ by rank, one rank a folder: folders that were peers (engine and models,
 * audio and store, webhooks and realtime) are ordered too, so no two folders can import each other,
 * and the order says which of two neighbours may lean on the other. native/ is C++ outside src/,
 * below all of these.
 */
export const LAYER_RANK: Readonly<Record<string, number>> = {
  domain: 0,
  'clinical-text': 1,
  models: 2,
  engine: 3,
  audio: 4,
  store: 5,
  config: 6,
  billing: 7,
  pipeline: 8,
  contract: 9,
  jobs: 10,
  webhooks: 11,
  application: 12,
  realtime: 13,
  api: 14,
  console: 15,
  service: 16,
  cli: 17,
};
