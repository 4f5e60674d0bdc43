// A realtime client for tests: the `ws` package as a browser-like peer, recording every event and the
// close, with helpers for the start message and for streaming a WAV file's PCM.
import WebSocket from 'ws';

export interface RealtimeEvent {
  type: string;
  sequence: number;
  [field: string]: unknown;
}

export interface RealtimeClient {
  socket: WebSocket;
  events: RealtimeEvent[];
  /** Resolves when the server closed the connection. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first event of `type` (already received or to come); rejects if the socket closes first. */
  next(type: string): Promise<RealtimeEvent>;
  start(fields: Record<string, unknown>): void;
  /** Sends PCM16 in frames of `frameMs`, `pace` times faster than real time (Infinity: at once). */
  stream(pcm: Uint8Array, options?: { frameMs?: number; pace?: number }): Promise<void>;
  stop(): void;
}

export function startMessage(apiKey: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'start',
    api_key: apiKey,
    streaming_mode: 'realtime',
    audio: { encoding: 'pcm16', sample_rate: 16000, channels: 1 },
    language: 'en',
    event_schema: 'svc-agent-v1',
    session_id: `s-${Math.random().toString(36).slice(2)}`,
    ...fields,
  };
}

export async function connectRealtime(url: string, path = '/v1/realtime'): Promise<RealtimeClient> {
  const socket = new WebSocket(`${url}${path}`);
  const events: RealtimeEvent[] = [];
  const waiters: Array<{ type: string; resolve: (e: RealtimeEvent) => void; reject: (e: Error) => void }> = [];
  let closedWith: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      closedWith = { code, reason: String(reason) };
      for (const w of waiters.splice(0)) w.reject(new Error(`closed ${code} ${String(reason)} before ${w.type}`));
      resolve(closedWith);
    });
  });
  socket.on('message', (data) => {
    const event = JSON.parse(String(data)) as RealtimeEvent;
    events.push(event);
    for (const w of waiters.filter((w) => w.type === event.type)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(event);
    }
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    events,
    closed,
    next: (type) => {
      const seen = events.find((e) => e.type === type);
      if (seen) return Promise.resolve(seen);
      if (closedWith) return Promise.reject(new Error(`closed before ${type}`));
      return new Promise((resolve, reject) => waiters.push({ type, resolve, reject }));
    },
    start: (fields) => socket.send(JSON.stringify(fields)),
    stream: async (pcm, { frameMs = 100, pace = 1 } = {}) => {
      const frame = Math.round((16000 * 2 * frameMs) / 1000);
      for (let at = 0; at < pcm.length && socket.readyState === WebSocket.OPEN; at += frame) {
        socket.send(pcm.subarray(at, Math.min(pcm.length, at + frame)));
        if (Number.isFinite(pace)) await new Promise((r) => setTimeout(r, frameMs / pace));
      }
    },
    stop: () => socket.send(JSON.stringify({ type: 'stop' })),
  };
}

/** The PCM16 samples of a canonical 44-byte-header WAV (the test fixtures' format). */
export function wavPcm(wav: Uint8Array): Uint8Array {
  return wav.subarray(44);
}
