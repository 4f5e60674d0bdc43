// The one PCM format inside the service: Whisper's and Silero's 16 kHz mono. Every decoded upload,
// realtime stream and test model is at this rate.

/** Samples per second of all PCM the service handles. */
export const SAMPLE_RATE = 16_000;
