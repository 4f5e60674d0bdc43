// A command's subcommands as one table: the dispatch reads it, and the help test
// (test/cli/subcommand-help.test.ts) checks every name in it against `svc-stt COMMAND --help`, so a
// subcommand cannot be added without the help saying so.
import type { CommandOutput } from './command-output.js';
import { UsageError } from './usage-error.js';

export type Subcommand = (argv: string[], out: CommandOutput) => Promise<void>;
export type Subcommands = Readonly<Record<string, Subcommand>>;

/** Runs `argv[0]` of `table` on the rest, or refuses with `usage` (an own name only: never `constructor`). */
export function dispatch(table: Subcommands, argv: string[], out: CommandOutput, usage: string): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || !Object.hasOwn(table, name)) throw new UsageError(usage);
  return table[name](rest, out);
}
