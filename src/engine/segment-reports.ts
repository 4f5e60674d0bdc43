// A transcribe call's segments reported as they are decoded (CallOptions.onSegments). The addon reports
// raw segments while whisper_full runs, through a port of their own, so a report may arrive after
// the result or not at all (DTW reports only some windows): the result is what completes them. Each
// segment is reported once, in order, shaped as the transcript shapes it (one UTF-8 assembly over
// every segment so far, so a character split across two segments lands where the result puts it).
import type { NativeSegment } from './native-addon.js';
import { shapeSegments, type TranscriptSegment } from './transcript.js';

export class SegmentReports {
  private readonly raw: NativeSegment[] = [];
  private reported = 0;
  private done = false;

  constructor(
    private readonly sampleCount: number,
    private readonly onSegments: ((segments: TranscriptSegment[]) => void) | undefined,
  ) {}

  /** Raw segments the addon finished since its last report. */
  decoded(segments: NativeSegment[]): void {
    if (this.done || !this.onSegments || segments.length === 0) return;
    this.raw.push(...segments);
    this.emit(shapeSegments(this.raw, this.sampleCount));
  }

  /** The result's segments: whatever was not reported yet is, and later reports are ignored. */
  finished(segments: TranscriptSegment[]): void {
    if (this.done) return;
    this.done = true;
    this.emit(segments);
  }

  private emit(segments: TranscriptSegment[]): void {
    if (!this.onSegments || segments.length <= this.reported) return;
    const fresh = segments.slice(this.reported);
    this.reported = segments.length;
    this.onSegments(fresh);
  }
}
