// The model manifest (models/manifest.json): which whisper.cpp model files a user can download, from
// where, and the published checksums they must match.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface ManifestEntry {
  /** What users type: `svc-stt models download NAME`. */
  name: string;
  /** File name in the models directory, `ggml-<name>.bin`. */
  file: string;
  url: string;
  sizeBytes?: number;
  sha256?: string;
  sha1?: string;
  arch: string;
  multilingual: boolean;
  /** 'f16', 'q5_0', 'q5_1', 'q8_0', ... */
  quantization: string;
  /** Where the checksums and size were found (keys of the manifest's `sources`). */
  source?: string;
}

export interface ModelManifest {
  models: ManifestEntry[];
  sources?: Record<string, string>;
}

/** models/manifest.json beside src/ (or dist/) in the package. */
export const DEFAULT_MANIFEST_PATH = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

export async function loadManifest(path: string = DEFAULT_MANIFEST_PATH): Promise<ModelManifest> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ManifestError(`cannot read the model manifest ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseManifest(raw, path);
}

/** Checks the shape of a manifest, so that a bad edit fails loudly instead of downloading to odd paths. */
export function parseManifest(raw: unknown, origin = 'manifest'): ModelManifest {
  const models = (raw as { models?: unknown })?.models;
  if (!Array.isArray(models)) throw new ManifestError(`${origin}: "models" must be an array`);
  const names = new Set<string>();
  for (const [i, entry] of models.entries()) {
    const problem = entryProblem(entry as ManifestEntry);
    if (problem) throw new ManifestError(`${origin}: models[${i}]: ${problem}`);
    if (names.has((entry as ManifestEntry).name)) throw new ManifestError(`${origin}: duplicate model name '${(entry as ManifestEntry).name}'`);
    names.add((entry as ManifestEntry).name);
  }
  return raw as ModelManifest;
}

function entryProblem(e: ManifestEntry): string | undefined {
  if (typeof e !== 'object' || e === null) return 'not an object';
  // Names become file names: no separators, no "..".
  if (typeof e.name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(e.name) || e.name.includes('..')) return `bad name ${JSON.stringify(e.name)}`;
  if (e.file !== `ggml-${e.name}.bin`) return `file must be ggml-${e.name}.bin`;
  if (typeof e.url !== 'string' || !/^https?:\/\//.test(e.url)) return 'url must be http(s)';
  if (e.sizeBytes !== undefined && !(Number.isSafeInteger(e.sizeBytes) && e.sizeBytes > 0)) return 'sizeBytes must be a positive integer';
  if (e.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(e.sha256)) return 'sha256 must be 64 lowercase hex digits';
  if (e.sha1 !== undefined && !/^[0-9a-f]{40}$/.test(e.sha1)) return 'sha1 must be 40 lowercase hex digits';
  if (typeof e.multilingual !== 'boolean') return 'multilingual must be a boolean';
  return undefined;
}

export function findManifestEntry(manifest: ModelManifest, name: string): ManifestEntry | undefined {
  return manifest.models.find((entry) => entry.name === name);
}
