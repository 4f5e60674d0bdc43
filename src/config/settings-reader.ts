// Reads one setting at a time from the environment (wins) or the config file, converts and checks
// it, and collects every problem instead of stopping at the first.
import { dirname, resolve } from 'node:path';

import { type ConfigFile, leafPaths, valueAt } from './config-file.js';

type Env = Record<string, string | undefined>;

/**
 * Where a setting is read from: an environment variable and/or a key in the config file (the
 * variable's name without `SVC_`, camelCase). `formerly` is the key an older file used for it, named
 * in the error that refuses it.
 */
export interface SettingName {
  env?: string;
  file: string;
  formerly?: string;
}

interface Found {
  value: unknown;
  label: string;
  fromEnv: boolean;
}

export class SettingsReader {
  readonly problems: string[] = [];
  private readonly read = new Map<string, SettingName>();

  constructor(
    private readonly env: Env,
    private readonly file: ConfigFile | null,
  ) {}

  /** Whether the setting was given at all (an empty variable counts as not given). */
  has(name: SettingName): boolean {
    return this.find(name) !== undefined;
  }

  /** Records a problem about a setting, labelled as the operator wrote it. */
  problem(name: SettingName, message: string): void {
    this.problems.push(`${this.labelOf(name)} ${message}`);
  }

  labelOf(name: SettingName): string {
    return this.find(name)?.label ?? name.env ?? `${name.file} (config file)`;
  }

  integer(name: SettingName, fallback: number, min: number, max: number): number {
    return this.convert(name, fallback, `must be an integer from ${min} to ${max}`, (value, fromEnv) => {
      const number = fromEnv ? (/^[+-]?\d+$/.test(String(value).trim()) ? Number(value) : NaN) : value;
      return typeof number === 'number' && Number.isInteger(number) && number >= min && number <= max ? number : undefined;
    });
  }

  positiveNumber(name: SettingName, fallback: number): number {
    return this.convert(name, fallback, 'must be a number greater than 0', (value, fromEnv) => {
      const number = fromEnv ? Number(String(value).trim() || NaN) : value;
      return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
    });
  }

  boolean(name: SettingName, fallback: boolean): boolean {
    return this.convert(name, fallback, 'must be true or false (or 1 or 0)', (value, fromEnv) => {
      if (!fromEnv) return typeof value === 'boolean' ? value : undefined;
      const text = String(value).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(text)) return true;
      if (['0', 'false', 'no', 'off'].includes(text)) return false;
      return undefined;
    });
  }

  oneOf<T extends string>(name: SettingName, fallback: T, choices: readonly T[]): T {
    return this.convert(name, fallback, `must be one of ${choices.join(', ')}`, (value) => choices.find((choice) => choice === value));
  }

  text(name: SettingName, fallback: string, pattern: RegExp, expectation: string): string {
    return this.convert(name, fallback, expectation, (value) => (typeof value === 'string' && pattern.test(value) ? value : undefined));
  }

  /**
   * A file or folder path, made absolute: relative to the working directory when it comes from the
   * environment, to the config file's folder when it comes from the file. Undefined when not given.
   */
  path(name: SettingName, resolveIn: (value: string, baseDir: string) => string = (value, baseDir) => resolve(baseDir, value)): string | undefined {
    const found = this.find(name);
    if (!found) return undefined;
    if (typeof found.value !== 'string' || found.value.trim() === '') {
      this.problems.push(`${found.label} must be a non-empty path`);
      return undefined;
    }
    return resolveIn(found.value, found.fromEnv || !this.file ? process.cwd() : dirname(this.file.path));
  }

  /** The value as the operator wrote it (undefined when not given). */
  raw(name: SettingName): unknown {
    return this.find(name)?.value;
  }

  /** Problems for config-file settings that no reader asked for (most likely typos). */
  reportUnknownFileSettings(): void {
    if (!this.file) return;
    for (const path of leafPaths(this.file.values)) {
      if (!this.read.has(path)) this.problems.push(`SVC_CONFIG: unknown setting '${path}' in ${this.file.path}; ${this.expectedKey(path)}`);
    }
  }

  /** What the operator most likely meant by a key no reader asked for: a former key, a variable's name, a typo. */
  private expectedKey(path: string): string {
    const names = [...this.read.values()];
    const former = names.find((name) => name.formerly === path);
    if (former) return `the setting is now '${former.file}' (${former.env ?? 'no environment variable'})`;
    const normal = (key: string) =>
      key
        .replace(/^svc_/i, '')
        .replace(/[^A-Za-z0-9]/g, '')
        .toLowerCase();
    // Also catches a variable's own name used as a key (SVC_MAX_QUEUE: maxQueue).
    const same = names.find((name) => normal(name.file) === normal(path));
    if (same) return `did you mean '${same.file}'?`;
    const [closest] = names
      .map((name) => ({ name, distance: editDistance(normal(name.file), normal(path)) }))
      .sort((a, b) => a.distance - b.distance || a.name.file.localeCompare(b.name.file));
    if (closest && closest.distance <= Math.max(2, Math.floor(normal(path).length / 4))) return `did you mean '${closest.name.file}'?`;
    return `the keys are the environment variables' names without SVC_, camelCase: ${names.map((name) => name.file).join(', ')}`;
  }

  private convert<T>(name: SettingName, fallback: T, expectation: string, parse: (value: unknown, fromEnv: boolean) => T | undefined): T {
    const found = this.find(name);
    if (!found) return fallback;
    const parsed = parse(found.value, found.fromEnv);
    if (parsed === undefined) {
      this.problems.push(`${found.label} ${expectation} (got ${JSON.stringify(found.value)})`);
      return fallback;
    }
    return parsed;
  }

  private find(name: SettingName): Found | undefined {
    this.read.set(name.file, name);
    const fromEnv = name.env ? this.env[name.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, label: name.env!, fromEnv: true };
    if (!this.file) return undefined;
    const value = valueAt(this.file.values, name.file);
    if (value === undefined) return undefined;
    return { value, label: `'${name.file}' in ${this.file.path}`, fromEnv: false };
  }
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
