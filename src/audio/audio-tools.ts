// The audio tools the service runs (ffmpeg to decode and measure, ffprobe to probe), looked up on PATH
// as the subprocesses will look them up: a service without them would answer every compressed upload
// and every job 500, so it refuses to start instead (src/service/start-service.ts).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const AUDIO_TOOLS = ['ffmpeg', 'ffprobe'] as const;

/** The audio tools are not on PATH: an installation problem, named with its fix. */
export class AudioToolsMissingError extends Error {
  override readonly name = 'AudioToolsMissingError';
  constructor(readonly missing: readonly string[]) {
    super(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not on PATH, and svc-stt needs ${missing.length === 1 ? 'it' : 'them'} to read ` +
        'audio: install ffmpeg (which brings both; e.g. `apt-get install ffmpeg`) or put the folder holding them on PATH',
    );
  }
}

/** The tools of AUDIO_TOOLS that no folder of `path` (a PATH value) holds as an executable file. */
export function missingAudioTools(path: string | undefined = process.env.PATH): string[] {
  const folders = (path ?? '').split(delimiter).filter((folder) => folder !== '');
  return AUDIO_TOOLS.filter((tool) => !folders.some((folder) => isExecutableFile(join(folder, tool))));
}

/** Throws AudioToolsMissingError naming what `path` lacks. */
export function requireAudioTools(path: string | undefined = process.env.PATH): void {
  const missing = missingAudioTools(path);
  if (missing.length > 0) throw new AudioToolsMissingError(missing);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
