// The realtime benchmarks' client: one session replaying PCM16 at real time over `ws`, timing each
// event on the client's clock against the moment it sent the audio in question (bench/realtime.ts
// says how each latency is measured), and the percentiles reported.
import WebSocket from 'ws';

import { DEFAULT_ENDPOINTING } from '../src/realtime/turn-detector.js';
import { round } from './lib-report.js';

export const FRAME_MS = 100;
const BYTES_PER_MS = 32; // 16 kHz × 2 bytes

export interface SessionFigures {
  partials: number[];
  turnFinals: number[];
  labels: number[];
  closeCode: number;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One session: start, stream at real time recording each frame's send time, stop, wait for close. */
/** `vocabulary`: terms for the start message (each turn_final then runs the prompted decode and its check). */
export async function replay(
  url: string,
  key: string,
  pcm: Uint8Array,
  id: string,
  speakers: boolean,
  vocabulary: readonly string[] = [],
): Promise<SessionFigures> {
  const socket = new WebSocket(`${url}/v1/realtime`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const sentAt: number[] = []; // wall time (ms) at which audio ms i·FRAME_MS was sent
  const sendTimeOf = (audioSeconds: number) => {
    const frame = Math.min(sentAt.length - 1, Math.floor((audioSeconds * 1000) / FRAME_MS));
    // The frame holding that moment was sent whole: its words could not be heard earlier.
    return sentAt[Math.max(0, frame)];
  };
  const figures: SessionFigures = { partials: [], turnFinals: [], labels: [], closeCode: 0 };
  const shownUntil = new Map<string, number>(); // per turn: the latest audio a partial carried
  const turnEnds = new Map<string, number>(); // per turn: its turn_final's end
  const labelled = new Set<string>();
  const ready = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const now = performance.now();
      const event = JSON.parse(String(data)) as { type: string; end?: number; turn_id?: string; turns?: Array<{ turn_id: string }> };
      if (event.type === 'ready') resolve();
      if (event.type === 'partial' && event.end !== undefined && event.end > (shownUntil.get(event.turn_id!) ?? -1)) {
        shownUntil.set(event.turn_id!, event.end);
        figures.partials.push(now - sendTimeOf(event.end));
      }
      if (event.type === 'turn_final' && event.end !== undefined) {
        figures.turnFinals.push(now - sendTimeOf(event.end + DEFAULT_ENDPOINTING.finalSilence));
        turnEnds.set(event.turn_id!, event.end);
      }
      for (const turn of event.type === 'speaker_labels' ? (event.turns ?? []) : []) {
        const end = turnEnds.get(turn.turn_id);
        if (end === undefined || labelled.has(turn.turn_id)) continue;
        labelled.add(turn.turn_id);
        figures.labels.push(now - sendTimeOf(end + DEFAULT_ENDPOINTING.finalSilence));
      }
    });
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.send(
    JSON.stringify({
      type: 'start',
      api_key: key,
      streaming_mode: 'realtime',
      audio: { encoding: 'pcm16', sample_rate: 16000, channels: 1 },
      language: 'en',
      event_schema: 'svc-agent-v1',
      session_id: id,
      ...(speakers ? { diarization: { enabled: true } } : {}),
      ...(vocabulary.length > 0 ? { vocabulary, dictionary: false } : {}),
    }),
  );
  await ready;
  const frameBytes = FRAME_MS * BYTES_PER_MS;
  const started = performance.now();
  for (let i = 0; i * frameBytes < pcm.length && socket.readyState === WebSocket.OPEN; i++) {
    // Paced on the clock, not on timer ticks, so a late tick does not slow the stream down.
    const due = started + i * FRAME_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sentAt.push(performance.now());
    socket.send(pcm.subarray(i * frameBytes, Math.min(pcm.length, (i + 1) * frameBytes)));
  }
  socket.send(JSON.stringify({ type: 'stop' }));
  figures.closeCode = await closed;
  return figures;
}

export const summary = (values: number[]) => ({ count: values.length, p50: round(percentile(values, 50), 0), p95: round(percentile(values, 95), 0) });

/** Medication and condition names, for sessions with a vocabulary (`--vocabulary N` takes the first N). */
export const BENCH_TERMS = [
  'metoprolol',
  'warfarin',
  'apixaban',
  'amiodarone',
  'atorvastatin',
  'lisinopril',
  'furosemide',
  'spironolactone',
  'metformin',
  'empagliflozin',
  'levothyroxine',
  'prednisolone',
  'salbutamol',
  'tiotropium',
  'omeprazole',
  'amoxicillin',
  'tachycardia',
  'bradycardia',
  'dyspnoea',
  'hypokalaemia',
  'cellulitis',
  'pyelonephritis',
  'cholecystitis',
  'diverticulitis',
];
