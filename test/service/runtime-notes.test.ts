// What the service says at start about its runtime (src/service/runtime-notes.ts), and the reason
// uWebSockets.js gives when its binary cannot load (src/realtime/transport/uws-transport.ts).
import t from 'tap';

import { uwsUnavailableReason, whyNot } from '../../src/realtime/transport/uws-transport.js';
import { runtimeNotes } from '../../src/service/runtime-notes.js';

const GLIBC = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;

t.test('a transport asked for, or uWebSockets.js serving: nothing to say', async (t) => {
  t.same(runtimeNotes({ uwsUnavailable: 'whatever', realtime: { asked: 'ws', serving: 'ws' } }), []);
  t.same(runtimeNotes({ uwsUnavailable: null, realtime: { asked: 'auto', serving: 'uws' } }), []);
  t.same(runtimeNotes({ uwsUnavailable: 'whatever', realtime: null }), [], 'a worker process has no realtime listener');
});

t.test('auto falling back to ws says why in one sentence', async (t) => {
  const notes = runtimeNotes({
    uwsUnavailable: 'uWebSockets.js needs glibc 2.38 or newer (Debian 13, Ubuntu 24.04) and this system has 2.36',
    realtime: { asked: 'auto', serving: 'ws' },
  });
  t.equal(notes.length, 1);
  t.equal(notes[0].level, 'info');
  t.equal(notes[0].message, 'realtime served by ws: uWebSockets.js needs glibc 2.38 or newer (Debian 13, Ubuntu 24.04) and this system has 2.36');
});

t.test("the loader's failures become the operator's reason", async (t) => {
  const binary = 'uws_linux_x64_137.node';
  const glibc = new Error(`/lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by /x/${binary})`);
  t.match(whyNot(glibc, binary), /^uWebSockets\.js needs glibc 2\.38 or newer \(Debian 13, Ubuntu 24\.04\) and this system has \d+\.\d+$/);
  const missing = Object.assign(new Error(`Cannot find module '/x/${binary}'`), { code: 'MODULE_NOT_FOUND' });
  t.equal(whyNot(missing, binary), `uWebSockets.js has no binary for Node.js ${process.versions.node} on ${process.platform}-${process.arch} (${binary})`);
  t.equal(whyNot(new Error('something else\nand a stack'), binary), 'uWebSockets.js did not load: something else');
});

t.test('on this machine: uWebSockets.js loads exactly where glibc is 2.38 or newer', async (t) => {
  const [major, minor] = (GLIBC ?? '0.0').split('.').map(Number);
  const newEnough = major! > 2 || (major === 2 && minor! >= 38);
  const reason = uwsUnavailableReason();
  if (newEnough) t.equal(reason, null, `glibc ${GLIBC}: it loads`);
  else t.equal(reason, `uWebSockets.js needs glibc 2.38 or newer (Debian 13, Ubuntu 24.04) and this system has ${GLIBC}`);
});
