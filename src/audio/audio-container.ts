/**
 * The container formats the service accepts (the contract's list: WAV, MP3, M4A/MP4, WebM, OGG,
 * FLAC, AAC). A container names how the bytes are framed, not which codec is inside: 'mp4' covers
 * .m4a/.mp4 (ISO base media), 'webm' covers Matroska as well, 'ogg' covers Vorbis and Opus, and
 * 'aac' is a raw ADTS stream.
 */
export const AUDIO_CONTAINERS = ['wav', 'mp3', 'mp4', 'webm', 'ogg', 'flac', 'aac'] as const;

export type AudioContainer = (typeof AUDIO_CONTAINERS)[number];

/** Short alias; same type as `AudioContainer`. */
export type Container = AudioContainer;

export function isAudioContainer(value: unknown): value is AudioContainer {
  return typeof value === 'string' && (AUDIO_CONTAINERS as readonly string[]).includes(value);
}
