// The realtime tab's audio worklet (/assets/playground-microphone.js, loaded by
// playground-realtime.js): the microphone's samples as PCM16 at 16 kHz in 100 ms frames (1,600
// samples), posted to the page as transferred ArrayBuffers. Linear resampling from the context's
// rate, where the browser did not give a 16 kHz context.

const TARGET_RATE = 16000;
const FRAME_SAMPLES = 1600;

class Pcm16Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / TARGET_RATE;
    this.position = 0;
    this.frame = new Int16Array(FRAME_SAMPLES);
    this.filled = 0;
  }

  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    let position = this.position;
    while (position < input.length) {
      const at = Math.floor(position);
      const next = at + 1 < input.length ? input[at + 1] : input[at];
      const sample = Math.max(-1, Math.min(1, input[at] + (next - input[at]) * (position - at)));
      this.frame[this.filled++] = sample < 0 ? sample * 0x8000 : sample * 0x7fff;
      if (this.filled === FRAME_SAMPLES) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME_SAMPLES);
        this.filled = 0;
      }
      position += this.step;
    }
    this.position = position - input.length;
    return true;
  }
}

registerProcessor('pcm16-capture', Pcm16Capture);
