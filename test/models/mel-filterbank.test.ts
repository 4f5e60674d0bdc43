import t from 'tap';

import { hzToMel, melFilterbank, melToHz } from '../../src/models/mel-filterbank.js';

t.test('the Slaney mel scale', async (t) => {
  t.ok(Math.abs(hzToMel(1000) - 15) < 1e-12, 'linear part ends at 1 kHz = 15 mel');
  t.ok(Math.abs(hzToMel(200) - 3) < 1e-12, '200/3 Hz per mel below 1 kHz');
  t.ok(Math.abs(hzToMel(6400) - 42) < 1e-9, '27 mels per factor 6.4 above 1 kHz');
  for (const hz of [0, 50, 999, 1000, 4000, 8000]) t.ok(Math.abs(melToHz(hzToMel(hz)) - hz) < 1e-9, `round trip ${hz} Hz`);
});

t.test('80 filters over 201 bins, area-normalised triangles', async (t) => {
  const bank = melFilterbank(80);
  t.equal(bank.length, 80 * 201);
  t.ok(
    bank.every((w) => w >= 0),
    'non-negative',
  );
  // First filter: edges 0, 37.2 and 74.5 Hz; bin 1 (40 Hz) is on its falling side.
  t.ok(Math.abs(bank[1] - 0.024862593) < 1e-7, `filter 0 at 40 Hz: ${bank[1]}`);
  t.equal(bank[0], 0, 'no weight at DC');
  let lastPeak = -1;
  for (let m = 0; m < 80; m++) {
    const row = bank.subarray(m * 201, (m + 1) * 201);
    const peak = row.indexOf(Math.max(...row));
    t.ok(peak >= lastPeak, `filter ${m} peaks no lower than the one before`);
    lastPeak = peak;
  }
  t.ok(
    bank.subarray(79 * 201).some((w) => w > 0),
    'the top filter reaches Nyquist',
  );
});
