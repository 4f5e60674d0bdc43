/**
 * Linear convolution by one zero-padded FFT: a room impulse response is thousands of taps long, so a
 * direct sum over a recording (N x M multiply-adds) takes seconds where the transform takes tens of ms.
 */

/** `signal` convolved with `kernel`, cut to the signal's length (the tail past its end is dropped). */
export function convolve(signal: Float32Array, kernel: Float32Array): Float32Array {
  let size = 1;
  while (size < signal.length + kernel.length - 1) size *= 2;
  const aRe = new Float64Array(size);
  const aIm = new Float64Array(size);
  const bRe = new Float64Array(size);
  const bIm = new Float64Array(size);
  aRe.set(signal);
  bRe.set(kernel);
  fft(aRe, aIm, false);
  fft(bRe, bIm, false);
  for (let i = 0; i < size; i++) {
    const re = aRe[i] * bRe[i] - aIm[i] * bIm[i];
    aIm[i] = aRe[i] * bIm[i] + aIm[i] * bRe[i];
    aRe[i] = re;
  }
  fft(aRe, aIm, true);
  return Float32Array.from(aRe.subarray(0, signal.length));
}

/** In-place iterative radix-2 FFT; `inverse` also divides by the length. The length must be a power of two. */
function fft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let length = 2; length <= n; length *= 2) {
    const angle = ((inverse ? 2 : -2) * Math.PI) / length;
    const stepRe = Math.cos(angle);
    const stepIm = Math.sin(angle);
    for (let start = 0; start < n; start += length) {
      let wRe = 1;
      let wIm = 0;
      for (let k = 0; k < length / 2; k++) {
        const a = start + k;
        const b = a + length / 2;
        const tRe = re[b] * wRe - im[b] * wIm;
        const tIm = re[b] * wIm + im[b] * wRe;
        re[b] = re[a] - tRe;
        im[b] = im[a] - tIm;
        re[a] += tRe;
        im[a] += tIm;
        const next = wRe * stepRe - wIm * stepIm;
        wIm = wRe * stepIm + wIm * stepRe;
        wRe = next;
      }
    }
  }
  if (inverse) {
    for (let i = 0; i < n; i++) {
      re[i] /= n;
      im[i] /= n;
    }
  }
}
