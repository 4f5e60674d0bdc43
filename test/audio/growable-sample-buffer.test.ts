import t from 'tap';

import { GrowableSampleBuffer } from '../../src/audio/growable-sample-buffer.js';

const asBytes = (samples: number[]): Uint8Array => new Uint8Array(Float32Array.from(samples).buffer);

t.test('collects samples across chunks that split a sample', async (t) => {
  const bytes = asBytes([0.5, -0.25, 1, -1, 0.125]);
  const buffer = new GrowableSampleBuffer(1, 100);
  for (const [from, to] of [
    [0, 3],
    [3, 9],
    [9, 10],
    [10, 20],
  ])
    t.ok(buffer.append(bytes.subarray(from, to)));
  t.equal(buffer.sampleCount, 5);
  t.same(Array.from(buffer.toFloat32Array()), [0.5, -0.25, 1, -1, 0.125]);
});

t.test('grows past its initial size and returns an exact-size buffer', async (t) => {
  const buffer = new GrowableSampleBuffer(2, 1000);
  const samples = Array.from({ length: 777 }, (_, i) => i / 1000);
  for (let i = 0; i < samples.length; i += 10) t.ok(buffer.append(asBytes(samples.slice(i, i + 10))));
  const result = buffer.toFloat32Array();
  t.equal(result.length, 777);
  t.equal(result.buffer.byteLength, 777 * 4);
  t.same(Array.from(result), Array.from(Float32Array.from(samples)));
});

t.test('refuses data past the cap, keeping what came before', async (t) => {
  const buffer = new GrowableSampleBuffer(1000, 4);
  t.ok(buffer.append(asBytes([1, 2, 3])));
  t.notOk(buffer.append(asBytes([4, 5])), 'five samples do not fit under a cap of four');
  t.ok(buffer.append(asBytes([4])), 'exactly at the cap fits');
  t.notOk(buffer.append(new Uint8Array(1)), 'not even a byte more');
  t.same(Array.from(buffer.toFloat32Array()), [1, 2, 3, 4]);
});
