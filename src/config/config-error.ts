// Everything wrong with the configuration at once, one problem per line, each naming its variable,
// so an operator fixes the environment in one pass instead of one restart per mistake.
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
