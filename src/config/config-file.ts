// The optional JSON config file named by SVC_CONFIG: an object of settings, each named as its
// environment variable without SVC_, camelCase (the names are load-config.ts's).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface ConfigFile {
  path: string;
  values: Record<string, unknown>;
}

/** The parsed file, or a problem (named after SVC_CONFIG) when it cannot be read or is not an object. */
export function readConfigFile(rawPath: string): ConfigFile | { problem: string } {
  const path = resolve(rawPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problem: `SVC_CONFIG: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    return { problem: `SVC_CONFIG: ${path} is not valid JSON (${(error as Error).message})` };
  }
  if (!isPlainObject(values)) return { problem: `SVC_CONFIG: ${path} must hold a JSON object` };
  return { path, values };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Dotted paths of every leaf value ("pool.workers"), for reporting settings nobody reads. */
export function leafPaths(values: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(values).flatMap(([name, value]) => (isPlainObject(value) ? leafPaths(value, `${prefix}${name}.`) : [`${prefix}${name}`]));
}

export function valueAt(values: Record<string, unknown>, dottedPath: string): unknown {
  let current: unknown = values;
  for (const part of dottedPath.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}
