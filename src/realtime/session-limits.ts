// The limits a realtime session runs under (the listener's, or a test's).
import { DEFAULT_ENDPOINTING, type Endpointing } from './turn-detector.js';

export interface SessionLimits {
  /** New audio (s) between two analyses. */
  stepSeconds: number;
  /** How far (s) the audio received may run ahead of the wall clock since `ready`. */
  maxAheadSeconds: number;
  /** Seconds without speech after which the session is closed. */
  silenceTimeoutSeconds: number;
  /** Seconds to send `start` after connecting. */
  startTimeoutSeconds: number;
  endpointing: Endpointing;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  stepSeconds: 0.25,
  maxAheadSeconds: 20,
  silenceTimeoutSeconds: 300,
  startTimeoutSeconds: 10,
  endpointing: DEFAULT_ENDPOINTING,
};
