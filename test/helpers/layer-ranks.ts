// The layers of src/ (docs/DESIGN.md "Layout"), for the architecture tests that check them.

/** Each folder under src/ by rank; peers share one. native/ is C++ outside src/, below all of these. */
export const LAYER_RANK: Readonly<Record<string, number>> = {
  domain: 0,
  engine: 1,
  audio: 1,
  models: 1,
  store: 1,
  config: 2,
  billing: 2,
  pipeline: 3,
  contract: 4,
  jobs: 5,
  webhooks: 6,
  realtime: 6,
  api: 7,
  service: 8,
  cli: 9,
};
