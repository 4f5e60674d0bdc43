// The install-time step that gives the service its VAD model with no model hub: Silero VAD's ONNX
// files come from a pinned npm package (the only host these machines and many users' build boxes
// reach), verified byte for byte, and are converted to whisper.cpp's ggml format by our converter.
// The conversion is deterministic, so its output is pinned too: a converted file that is already in
// place with the pinned hash is kept, and a conversion that yields other bytes is refused.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { convertSileroOnnxToGgml, parseSileroVersion } from './silero-ggml-converter.js';
import { writeFileAtomically } from './write-file-atomically.js';

export const SILERO_VAD_CARRIER = {
  package: '@ricky0123/vad-web@0.0.31',
  /** sha256 of the .tgz that `npm pack` writes; the registry's integrity field is sha512 of the same bytes. */
  sha256: 'd1a211cf1a2ed26297da52cc08de79e75d79838a274bfc6de546feb1f828c940',
  /** Lets an offline install use a tarball fetched elsewhere. */
  tarballEnv: 'SVC_VAD_TARBALL',
} as const;

export interface SileroVadRelease {
  /** Path of the ONNX file inside the carrier's tarball. */
  readonly member: string;
  readonly version: string;
  /** File name of the conversion in the models directory. */
  readonly file: string;
  /** sha256 of our conversion. */
  readonly sha256: string;
}

/** The first is the service's default VAD model. */
export const SILERO_VAD_RELEASES: readonly SileroVadRelease[] = [
  {
    member: 'package/dist/silero_vad_v6.onnx',
    version: '6.2.1',
    file: 'ggml-silero-v6.2.1.bin',
    // whisper.cpp's official ggml-silero-v6.2.0.bin with the version field saying 6.2.1: v6.2.1 changed
    // no weight of the 16 kHz model.
    sha256: 'e74a09072d124deb885dfe888663f7652814c5667ef9f8dc4eba975d43683b9b',
  },
  {
    member: 'package/dist/silero_vad_v5.onnx',
    version: '5.1.2',
    file: 'ggml-silero-v5.1.2.bin',
    // Byte-identical to whisper.cpp's official ggml-silero-v5.1.2.bin.
    sha256: '29940d98d42b91fbd05ce489f3ecf7c72f0a42f027e4875919a28fb4c04ea2cf',
  },
];

/** File name of the service's default VAD model in the models directory. */
export const DEFAULT_SILERO_VAD_FILE = SILERO_VAD_RELEASES[0].file;

export class SileroVadInstallError extends Error {
  override readonly name = 'SileroVadInstallError';
}

export interface SileroVadInstallOptions {
  /** Receives the converted files (created if missing). */
  modelsDir: string;
  /** Where a fetched carrier tarball is kept (created if missing). */
  cacheDir: string;
  /** A carrier tarball to use instead of fetching one; defaults to $SVC_VAD_TARBALL. */
  tarball?: string;
  log?: (line: string) => void;
}

/** Makes sure every release's conversion is in modelsDir; returns their paths, default model first. */
export async function ensureSileroVadModels(options: SileroVadInstallOptions): Promise<string[]> {
  const log = options.log ?? ((line: string) => console.error(`svc-stt: ${line}`));
  const paths = SILERO_VAD_RELEASES.map((release) => join(options.modelsDir, release.file));
  const stale: SileroVadRelease[] = [];
  for (const [i, release] of SILERO_VAD_RELEASES.entries()) {
    if (!(await hasSha256(paths[i], release.sha256))) stale.push(release);
  }
  if (stale.length === 0) {
    log(`Silero VAD models up to date in ${options.modelsDir}`);
    return paths;
  }

  const tarball = await verifiedCarrier(options, log);
  await mkdir(options.modelsDir, { recursive: true });
  await mkdir(options.cacheDir, { recursive: true });
  const staging = await mkdtemp(join(options.cacheDir, 'silero-vad-'));
  try {
    await run('tar', ['-xzf', tarball, '-C', staging, ...stale.map((r) => r.member)]);
    for (const release of stale) {
      const ggml = convertSileroOnnxToGgml(await readFile(join(staging, release.member)), parseSileroVersion(release.version));
      const actual = sha256(ggml);
      if (actual !== release.sha256) {
        throw new SileroVadInstallError(
          `converting ${release.member} gave sha256 ${actual}, expected ${release.sha256}: the converter changed; not installing it`,
        );
      }
      await writeFileAtomically(join(options.modelsDir, release.file), ggml);
      log(`Silero VAD ${release.version} converted from ${SILERO_VAD_CARRIER.package} to ${join(options.modelsDir, release.file)}`);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return paths;
}

/** The carrier tarball, checked against its pin: the given one, a cached one, or a fresh `npm pack`. */
async function verifiedCarrier(options: SileroVadInstallOptions, log: (line: string) => void): Promise<string> {
  const given = options.tarball ?? process.env[SILERO_VAD_CARRIER.tarballEnv];
  if (given) {
    const path = resolve(given);
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      throw new SileroVadInstallError(`cannot read the Silero VAD tarball ${path} (${error.code ?? error.message})`, { cause: error });
    });
    const actual = sha256(bytes);
    // Someone else's file: refused, not deleted.
    if (actual !== SILERO_VAD_CARRIER.sha256) throw mismatch(path, actual);
    return path;
  }
  const cached = join(options.cacheDir, cacheFileName());
  if (await hasSha256(cached, SILERO_VAD_CARRIER.sha256)) return cached;

  log(`fetching Silero VAD from the npm registry (${SILERO_VAD_CARRIER.package})`);
  await mkdir(options.cacheDir, { recursive: true });
  let fetched: string;
  try {
    const out = await run('npm', ['pack', SILERO_VAD_CARRIER.package, '--pack-destination', options.cacheDir, '--json', '--silent']);
    fetched = join(options.cacheDir, (JSON.parse(out) as { filename: string }[])[0].filename);
  } catch (error) {
    throw new SileroVadInstallError(
      `cannot fetch ${SILERO_VAD_CARRIER.package} (${failureDetail(error)}); offline, ` +
        `set ${SILERO_VAD_CARRIER.tarballEnv} to the tarball that \`npm pack ${SILERO_VAD_CARRIER.package}\` writes elsewhere`,
      { cause: error },
    );
  }
  const actual = sha256(await readFile(fetched));
  if (actual !== SILERO_VAD_CARRIER.sha256) {
    // Never left in the cache, where a later run could pick it up.
    await rm(fetched, { force: true });
    throw mismatch(fetched, actual);
  }
  return fetched;
}

/** The name `npm pack` gives the carrier's tarball: scope and name joined by '-', then the version. */
function cacheFileName(): string {
  const [, scope, name, version] = /^@([^/]+)\/(.+)@([^@]+)$/.exec(SILERO_VAD_CARRIER.package)!;
  return `${scope}-${name}-${version}.tgz`;
}

/** npm's own summary (`npm pack --json` prints errors as JSON on stdout), else the first line of the failure. */
function failureDetail(error: unknown): string {
  try {
    const summary = (JSON.parse(String((error as { stdout?: unknown }).stdout)) as { error?: { summary?: string } }).error?.summary;
    if (summary) return summary;
  } catch {
    // Not npm's JSON: fall through to the process error.
  }
  return (error as Error).message.split('\n')[0];
}

function mismatch(path: string, actual: string): SileroVadInstallError {
  return new SileroVadInstallError(
    `${SILERO_VAD_CARRIER.package} tarball ${path} has sha256 ${actual}, expected ${SILERO_VAD_CARRIER.sha256}; refusing to convert it`,
  );
}

async function hasSha256(path: string, expected: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  return sha256(await readFile(path)) === expected;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function run(command: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}
