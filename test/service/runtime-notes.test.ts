// What the service says at start about its runtime (src/service/runtime-notes.ts).
import t from 'tap';

import { runtimeNotes } from '../../src/service/runtime-notes.js';

t.test('a transport asked for, or uWebSockets.js serving: nothing to say', async (t) => {
  t.same(runtimeNotes({ nodeVersion: '24.21.0', abi: '137', realtime: { asked: 'ws', serving: 'ws' } }), []);
  t.same(runtimeNotes({ nodeVersion: '20.20.2', abi: '115', realtime: { asked: 'auto', serving: 'uws' } }), []);
  t.same(runtimeNotes({ nodeVersion: '24.21.0', abi: '137', realtime: null }), [], 'a worker process has no realtime listener');
});

t.test('auto falling back to ws names the runtime and the reason', async (t) => {
  const notes = runtimeNotes({ nodeVersion: '24.21.0', abi: '137', realtime: { asked: 'auto', serving: 'ws' } });
  t.equal(notes.length, 1);
  t.equal(notes[0].level, 'info');
  t.match(notes[0].message, /^realtime served by ws: uWebSockets\.js has no binary for Node\.js 24\.21\.0 \(ABI 137/);
});
