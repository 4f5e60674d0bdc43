import { resolve } from 'node:path';

import type { AudioContainer } from './audio-container.js';
import { type AudioInput, audioSourceOf } from './audio-source.js';

/**
 * How a recording is handed to ffmpeg/ffprobe so that it cannot make ffmpeg read anything else.
 *
 * - The demuxer is forced (`-f`) to the one for the sniffed container. ffmpeg's own format probing is
 *   never used, so a file can never be opened as an HLS playlist, a concat list, an image sequence or
 *   any of the other "formats" that are really instructions to open more inputs.
 * - `-protocol_whitelist` bounds what the chosen demuxer may open even if it follows a reference
 *   (e.g. an MP4 data reference), and what an HTTP redirect may lead to: a local file gets
 *   `file,pipe` (no network at all); a URL gets exactly its scheme's stack — `http,tcp`, or
 *   `https,tls,tcp` (https is http over tls over tcp; checked on ffmpeg 5.1: without `tls` an https
 *   input fails) — and never `file`, so no redirect can lead to a local file (ffmpeg's http also
 *   only ever follows a Location as http(s); test/audio/audio-source.test.ts checks both ways).
 * - A path is given as an absolute `file:` URL so that no part of a file name is ever read as a
 *   protocol prefix (`http:...`) or as an option (`-...`), and colons in names are harmless. A URL is
 *   given as is, after checking that it is http(s): it comes from our own blob store, not a client.
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

/** The protocol stack of each URL scheme ffmpeg may read job audio over. */
export const FFMPEG_URL_PROTOCOL_WHITELISTS: Readonly<Record<string, string>> = {
  'http:': 'http,tcp',
  'https:': 'https,tls,tcp',
};

/**
 * ffmpeg's http options for reading object storage. Long jobs read for minutes over a network:
 * - `-reconnect 1 -reconnect_on_network_error 1`: a connection cut mid-body is resumed with a
 *   Range request from where it stopped (without it ffmpeg treats the cut as the end of the file
 *   and exits 0 with the audio truncated — checked); retried after 0, 1, 2 and 4 s, then given up.
 * - `-rw_timeout` (µs): a stalled connection fails (and is retried) after 30 s instead of hanging
 *   until the decode's wall-clock limit, which would read as a decoder stuck in a hostile file.
 * HTTP errors (403 expired, 404 deleted) are not retried: they do not heal within a decode.
 */
const HTTP_INPUT_ARGS: readonly string[] = [
  '-reconnect',
  '1',
  '-reconnect_on_network_error',
  '1',
  '-reconnect_delay_max',
  '4',
  '-rw_timeout',
  String(30_000_000),
];

export function ffmpegDemuxerFor(container: AudioContainer): string {
  return DEMUXERS[container];
}

/** Input options followed by `-i <input>`, for both ffmpeg and ffprobe. */
export function safeInputArgs(input: AudioInput, container: AudioContainer): string[] {
  const source = audioSourceOf(input);
  const demuxer = ['-f', ffmpegDemuxerFor(container)];
  if (source.kind === 'file') {
    return ['-protocol_whitelist', FFMPEG_PROTOCOL_WHITELIST, ...demuxer, '-i', `file:${resolve(source.path)}`];
  }
  return ['-protocol_whitelist', urlProtocolWhitelist(source.url), ...HTTP_INPUT_ARGS, ...demuxer, '-i', source.url];
}

function urlProtocolWhitelist(url: string): string {
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol;
  } catch {
    // not a URL at all: refused below without echoing it (it may carry a signature)
  }
  const whitelist = scheme === undefined ? undefined : FFMPEG_URL_PROTOCOL_WHITELISTS[scheme];
  if (whitelist === undefined) throw new RangeError('an audio source URL is http: or https:');
  return whitelist;
}
