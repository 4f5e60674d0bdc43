// The layers of src/ (docs/DESIGN.md "Layout"), for the architecture tests that check them.

/**
 * Each folder under src/ by rank, one rank a folder: folders that were peers (engine and models,
 * audio and store, webhooks and realtime) are ordered too, so no two folders can import each other,
 * and the order says which of two neighbours may lean on the other. native/ is C++ outside src/,
 * below all of these.
 */
export const LAYER_RANK: Readonly<Record<string, number>> = {
  domain: 0,
  models: 1,
  engine: 2,
  audio: 3,
  store: 4,
  config: 5,
  billing: 6,
  pipeline: 7,
  contract: 8,
  jobs: 9,
  webhooks: 10,
  realtime: 11,
  application: 12,
  api: 13,
  console: 14,
  service: 15,
  cli: 16,
};
