/**
 * Collects a raw float32 PCM byte stream into one Float32Array without quadratic copying: the
 * backing store is preallocated from an expected size when one is known and otherwise grows
 * geometrically, and it never grows past a hard cap (the caller's maximum duration).
 */

const BYTES_PER_SAMPLE = Float32Array.BYTES_PER_ELEMENT;

export class GrowableSampleBuffer {
  private bytes: Uint8Array;
  private used = 0;

  /**
   * @param initialSamples first allocation, clamped to `maxSamples`
   * @param maxSamples samples beyond this are refused (`append` returns false)
   */
  constructor(
    initialSamples: number,
    private readonly maxSamples: number,
  ) {
    const initial = Math.max(1, Math.min(Math.ceil(initialSamples), maxSamples));
    this.bytes = new Uint8Array(initial * BYTES_PER_SAMPLE);
  }

  get byteLength(): number {
    return this.used;
  }

  get sampleCount(): number {
    return Math.floor(this.used / BYTES_PER_SAMPLE);
  }

  /** Appends raw bytes (chunks may split a sample). Returns false, appending nothing, past the cap. */
  append(chunk: Uint8Array): boolean {
    const needed = this.used + chunk.length;
    if (needed > this.maxSamples * BYTES_PER_SAMPLE) return false;
    if (needed > this.bytes.length) this.grow(needed);
    this.bytes.set(chunk, this.used);
    this.used = needed;
    return true;
  }

  /**
   * The collected samples in an array whose buffer is exactly its size, so that callers may transfer
   * `.buffer` to a worker without shipping (or exposing) unused capacity. That costs one copy when
   * the preallocation was not exact.
   */
  toFloat32Array(): Float32Array {
    const usedBytes = this.sampleCount * BYTES_PER_SAMPLE;
    const buffer = usedBytes === this.bytes.byteLength ? this.bytes.buffer : this.bytes.buffer.slice(0, usedBytes);
    return new Float32Array(buffer);
  }

  private grow(neededBytes: number): void {
    const capBytes = this.maxSamples * BYTES_PER_SAMPLE;
    const doubled = Math.max(this.bytes.length * 2, neededBytes);
    const next = new Uint8Array(Math.min(capBytes, roundUpToSample(doubled)));
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
  }
}

function roundUpToSample(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_SAMPLE) * BYTES_PER_SAMPLE;
}
