import { resolve } from 'node:path';
import type { AudioContainer } from './audio-container.js';

/**
 * How an upload is handed to ffmpeg/ffprobe so that the file cannot make ffmpeg read anything else.
 *
 * - The demuxer is forced (`-f`) to the one for the sniffed container. ffmpeg's own format probing is
 *   never used, so a file can never be opened as an HLS playlist, a concat list, an image sequence or
 *   any of the other "formats" that are really instructions to open more inputs.
 * - `-protocol_whitelist file,pipe` bounds what the chosen demuxer may open even if it follows a
 *   reference (e.g. an MP4 data reference): no http, tcp, udp, rtmp, data, subfile...
 * - The path is given as an absolute `file:` URL so that no part of a file name is ever read as a
 *   protocol prefix (`http:...`) or as an option (`-...`), and colons in names are harmless.
 */

const DEMUXERS: Readonly<Record<AudioContainer, string>> = {
  wav: 'wav',
  mp3: 'mp3',
  mp4: 'mov', // ffmpeg's "mov,mp4,m4a,3gp,3g2,mj2" demuxer
  webm: 'matroska', // "matroska,webm"; also reads plain Matroska
  ogg: 'ogg',
  flac: 'flac',
  aac: 'aac', // raw ADTS
};

export const FFMPEG_PROTOCOL_WHITELIST = 'file,pipe';

export function ffmpegDemuxerFor(container: AudioContainer): string {
  return DEMUXERS[container];
}

/** Input options followed by `-i <input>`, for both ffmpeg and ffprobe. */
export function safeInputArgs(path: string, container: AudioContainer): string[] {
  return ['-protocol_whitelist', FFMPEG_PROTOCOL_WHITELIST, '-f', ffmpegDemuxerFor(container), '-i', `file:${resolve(path)}`];
}
