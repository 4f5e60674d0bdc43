import { open } from 'node:fs/promises';

import type { AudioContainer } from './audio-container.js';

/**
 * Identifies an upload's container from its first bytes only. File names and declared MIME types are
 * claims made by the client; the bytes are what ffmpeg will actually parse, so they decide.
 */

/** Bytes `sniffContainer` wants to see: enough to check two consecutive MPEG/ADTS frame headers. */
export const SNIFF_BYTES = 4096;

/** Some writers leave stray zero bytes between an ID3 tag and the first frame. */
const MAX_ZERO_PADDING_AFTER_ID3 = 1024;

/** Guard against a file that is nothing but chained ID3 headers. */
const MAX_CHAINED_ID3_TAGS = 8;

/** ISO-BMFF brands that announce still images (HEIF, AVIF, camera raw), never audio. */
const IMAGE_FTYP_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis', 'crx ']);

/**
 * Returns the container the bytes start with, or null when they are not one we accept (the caller
 * answers 415). An empty input gives null. When an ID3 tag runs past the end of `firstBytes`, the
 * payload cannot be seen and 'mp3' is assumed (by far the most common case); `sniffFile` reads past
 * the tag instead of guessing.
 */
export function sniffContainer(firstBytes: Uint8Array): AudioContainer | null {
  const id3End = id3PrefixLength(firstBytes);
  if (id3End === 0) return sniffWithoutId3(firstBytes);
  if (id3End >= firstBytes.length) return 'mp3';
  return sniffPayloadAfterId3(firstBytes.subarray(id3End), 'mp3');
}

/**
 * Reads `length` bytes at `offset` of the recording (fewer at its end, none past it): a local file
 * (sniffFile) or object storage (BlobStore.readRange), so jobs can sniff audio they never download.
 */
export type ReadBytesAt = (offset: number, length: number) => Promise<Uint8Array>;

/** Sniffs a file on disk, reading past ID3 tags of any size. */
export async function sniffFile(path: string): Promise<AudioContainer | null> {
  const file = await open(path, 'r');
  try {
    return await sniffWithReader((offset, length) => readAt(file, offset, length));
  } finally {
    await file.close();
  }
}

/** Sniffs the recording `read` reads from, reading past ID3 tags of any size (a few small reads). */
export async function sniffWithReader(read: ReadBytesAt): Promise<AudioContainer | null> {
  const head = await read(0, SNIFF_BYTES);
  const id3End = await id3PrefixLengthFrom(read, head);
  if (id3End === 0) return sniffWithoutId3(head);
  const payload = await read(id3End, SNIFF_BYTES);
  if (payload.length === 0) return null;
  return sniffPayloadAfterId3(payload, null);
}

function sniffWithoutId3(bytes: Uint8Array): AudioContainer | null {
  if (bytes.length >= 12 && isWaveRiff(bytes)) return 'wav';
  if (bytes.length >= 12 && isIsoBaseMediaAudio(bytes)) return 'mp4';
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'webm';
  if (startsWith(bytes, ascii('OggS')) && bytes.length >= 5 && bytes[4] === 0) return 'ogg';
  if (startsWith(bytes, ascii('fLaC'))) return 'flac';
  if (isFrameStream(bytes, 0, adtsFrameLength)) return 'aac';
  if (isFrameStream(bytes, 0, mpegAudioFrameLength)) return 'mp3';
  return null;
}

/**
 * ID3v2 tags belong to MP3, but ffmpeg skips them in front of any format and taggers put them before
 * FLAC and ADTS too; other containers never follow one.
 *
 * @param whenUnsure what to answer when the payload is too short to hold a frame header (only
 *   possible when the caller's buffer ended early).
 */
function sniffPayloadAfterId3(payload: Uint8Array, whenUnsure: AudioContainer | null): AudioContainer | null {
  let start = 0;
  while (start < payload.length && start < MAX_ZERO_PADDING_AFTER_ID3 && payload[start] === 0) start += 1;
  if (payload.length - start < 10) return whenUnsure;
  if (startsWith(payload.subarray(start), ascii('fLaC'))) return 'flac';
  if (isFrameStream(payload, start, adtsFrameLength)) return 'aac';
  if (isFrameStream(payload, start, mpegAudioFrameLength)) return 'mp3';
  return null;
}

// ---- RIFF/WAVE and ISO-BMFF ----

function isWaveRiff(bytes: Uint8Array): boolean {
  const chunkId = latin1(bytes, 0, 4);
  // RF64 and BW64 are the >4 GiB variants; RIFX is the big-endian one. ffmpeg's wav demuxer reads all.
  return ['RIFF', 'RIFX', 'RF64', 'BW64'].includes(chunkId) && latin1(bytes, 8, 4) === 'WAVE';
}

function isIsoBaseMediaAudio(bytes: Uint8Array): boolean {
  if (latin1(bytes, 4, 4) !== 'ftyp') return false;
  const boxSize = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  if (boxSize < 12) return false;
  return !IMAGE_FTYP_BRANDS.has(latin1(bytes, 8, 4));
}

// ---- ID3v2 ----

/** Length of the ID3v2 tag at `offset`, or 0 when there is no well-formed tag header there. */
function id3TagLengthAt(bytes: Uint8Array, offset: number): number {
  if (offset + 10 > bytes.length) return 0;
  if (bytes[offset] !== 0x49 || bytes[offset + 1] !== 0x44 || bytes[offset + 2] !== 0x33) return 0; // "ID3"
  const major = bytes[offset + 3];
  const revision = bytes[offset + 4];
  if (major < 2 || major > 4 || revision === 0xff) return 0;
  const sizeBytes = bytes.subarray(offset + 6, offset + 10);
  if (sizeBytes.some((b) => b >= 0x80)) return 0; // sizes are "syncsafe": 7 bits per byte
  const size = (sizeBytes[0] << 21) | (sizeBytes[1] << 14) | (sizeBytes[2] << 7) | sizeBytes[3];
  const hasFooter = (bytes[offset + 5] & 0x10) !== 0;
  return 10 + size + (hasFooter ? 10 : 0);
}

/** Total length of the chained ID3v2 tags at the start of `bytes` (0 when none). */
function id3PrefixLength(bytes: Uint8Array): number {
  let end = 0;
  for (let tags = 0; tags < MAX_CHAINED_ID3_TAGS; tags += 1) {
    const length = id3TagLengthAt(bytes, end);
    if (length === 0) break;
    end += length;
  }
  return end;
}

async function id3PrefixLengthFrom(read: ReadBytesAt, head: Uint8Array): Promise<number> {
  let end = 0;
  let header = head.subarray(0, 10);
  for (let tags = 0; tags < MAX_CHAINED_ID3_TAGS; tags += 1) {
    const length = id3TagLengthAt(header, 0);
    if (length === 0) break;
    end += length;
    header = await read(end, 10);
  }
  return end;
}

// ---- MPEG audio (MP3/MP2) and ADTS frame headers ----

type FrameLengthReader = (bytes: Uint8Array, offset: number) => number | null;

/**
 * True when a valid frame header sits at `offset` and, if the buffer reaches that far, another one
 * follows right after the first frame. Checking two headers keeps random bytes (which hit a single
 * plausible header about once in ten thousand tries) from passing as audio.
 */
function isFrameStream(bytes: Uint8Array, offset: number, frameLength: FrameLengthReader): boolean {
  const first = frameLength(bytes, offset);
  if (first === null) return false;
  const next = offset + first;
  if (next + 4 > bytes.length) return true;
  return frameLength(bytes, next) !== null;
}

// Kilobits per second by bitrate index (index 0, "free format", and 15 are not accepted).
const MPEG1_LAYER2_KBPS = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384];
const MPEG1_LAYER3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_LAYER2_3_KBPS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MPEG1_SAMPLE_RATES = [44100, 48000, 32000];

/** Frame length in bytes of the MPEG-1/2/2.5 Layer II or III frame at `offset`, or null. */
function mpegAudioFrameLength(bytes: Uint8Array, offset: number): number | null {
  if (offset + 4 > bytes.length) return null;
  const [b0, b1, b2, b3] = [bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const version = (b1 >> 3) & 0b11; // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layer = (b1 >> 1) & 0b11; // 1: III, 2: II, 3: I, 0: reserved
  if (version === 1 || (layer !== 1 && layer !== 2)) return null;
  const bitrateIndex = b2 >> 4;
  const sampleRateIndex = (b2 >> 2) & 0b11;
  if (bitrateIndex === 0 || bitrateIndex === 15 || sampleRateIndex === 3) return null;
  if ((b3 & 0b11) === 2) return null; // reserved emphasis
  const isMpeg1 = version === 3;
  const kbps = isMpeg1 ? (layer === 1 ? MPEG1_LAYER3_KBPS : MPEG1_LAYER2_KBPS)[bitrateIndex] : MPEG2_LAYER2_3_KBPS[bitrateIndex];
  const sampleRate = MPEG1_SAMPLE_RATES[sampleRateIndex] / (isMpeg1 ? 1 : version === 2 ? 2 : 4);
  const padding = (b2 >> 1) & 1;
  // Layer III in MPEG-2/2.5 carries 576 samples per frame instead of 1152, hence the halved factor.
  const factor = layer === 1 && !isMpeg1 ? 72_000 : 144_000;
  return Math.floor((factor * kbps) / sampleRate) + padding;
}

/** Frame length in bytes of the ADTS (raw AAC) frame at `offset`, or null. */
function adtsFrameLength(bytes: Uint8Array, offset: number): number | null {
  if (offset + 7 > bytes.length) return null;
  // 12-bit sync, then the MPEG version bit, then a layer field that must be 00.
  if (bytes[offset] !== 0xff || (bytes[offset + 1] & 0xf6) !== 0xf0) return null;
  const sampleRateIndex = (bytes[offset + 2] >> 2) & 0x0f;
  if (sampleRateIndex > 12) return null;
  const frameLength = ((bytes[offset + 3] & 0b11) << 11) | (bytes[offset + 4] << 3) | (bytes[offset + 5] >> 5);
  const headerLength = (bytes[offset + 1] & 1) === 1 ? 7 : 9; // protection_absent=0 adds a CRC
  return frameLength > headerLength ? frameLength : null;
}

// ---- byte helpers ----

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

function latin1(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

async function readAt(file: Awaited<ReturnType<typeof open>>, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
