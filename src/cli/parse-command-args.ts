// One reader of a subcommand's options: node's parseArgs, strict, with a refusal that shows the
// command's usage (exit 2) instead of parseArgs's own error alone.
import { parseArgs } from 'node:util';

import { UsageError } from './usage-error.js';

export type CommandOptions = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

export function parseCommandArgs<O extends CommandOptions>(
  argv: string[],
  usage: string,
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
}
