import { SAMPLE_RATE } from '../domain/audio-format.js';
// The mel filterbank OpenAI's whisper ships (and every whisper.cpp file embeds): triangular filters on
// the Slaney mel scale with Slaney area normalisation, the same definition as
// librosa.filters.mel(sr=16000, n_fft=400, n_mels=80) with its defaults (htk=False, norm='slaney').

const N_FFT = 400;

// Slaney's scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above (27 mels per factor 6.4).
const LINEAR_HZ_PER_MEL = 200 / 3;
const LOG_START_HZ = 1000;
const LOG_START_MEL = LOG_START_HZ / LINEAR_HZ_PER_MEL;
const LOG_STEP = Math.log(6.4) / 27;

export function hzToMel(hz: number): number {
  return hz < LOG_START_HZ ? hz / LINEAR_HZ_PER_MEL : LOG_START_MEL + Math.log(hz / LOG_START_HZ) / LOG_STEP;
}

export function melToHz(mel: number): number {
  return mel < LOG_START_MEL ? mel * LINEAR_HZ_PER_MEL : LOG_START_HZ * Math.exp(LOG_STEP * (mel - LOG_START_MEL));
}

/** Row-major [nMels][N_FFT/2 + 1] weights, computed in double precision and stored as f32. */
export function melFilterbank(nMels: number): Float32Array {
  const nBins = N_FFT / 2 + 1;
  const binHz = Array.from({ length: nBins }, (_, k) => (k * SAMPLE_RATE) / N_FFT);
  // nMels + 2 edges evenly spaced in mel between 0 Hz and Nyquist: filter m spans edges m..m+2.
  const maxMel = hzToMel(SAMPLE_RATE / 2);
  const edgesHz = Array.from({ length: nMels + 2 }, (_, i) => melToHz((maxMel * i) / (nMels + 1)));
  const weights = new Float32Array(nMels * nBins);
  for (let m = 0; m < nMels; m++) {
    const [lo, center, hi] = [edgesHz[m], edgesHz[m + 1], edgesHz[m + 2]];
    const area = 2 / (hi - lo); // each filter integrates to the same area
    for (let k = 0; k < nBins; k++) {
      const rising = (binHz[k] - lo) / (center - lo);
      const falling = (hi - binHz[k]) / (hi - center);
      weights[m * nBins + k] = Math.max(0, Math.min(rising, falling)) * area;
    }
  }
  return weights;
}
