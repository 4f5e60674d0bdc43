// A Node.js that runs on Debian 13's C runtime (glibc 2.41), for the uWebSockets.js tests on a
// machine whose own glibc is older than the 2.38 its binaries need (Debian 12 has 2.36): this Node
// binary, copied and pointed by patchelf at Debian 13's dynamic loader and libraries, so it and every
// native module it loads (uWS.js, our addon) use them, and Node processes it spawns
// (process.execPath) are the same. Other programs it starts (ffmpeg) keep the system's own runtime.
//
// Everything comes from Debian through apt, which checks the archive's signatures and the packages'
// hashes: libc6, libstdc++6 and libgcc-s1 from trixie, and patchelf from the system's own release
// when it is not installed. Kept under test/.cache/newer-glibc/, keyed by the Node version, and made
// once (a second caller waits for the first one's folder to appear whole: it is renamed into place).
import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = join(import.meta.dirname, '..', '.cache', 'newer-glibc');
/** Debian 13 and the runtime packages a Node.js process and its C++ modules load. */
const SUITE = 'trixie';
const PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1'];
const LIBRARIES = join('usr', 'lib', 'x86_64-linux-gnu');

/** The glibc version of the process running this, e.g. "2.36". */
export function glibcVersion(): string | null {
  return (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime ?? null;
}

/** The path of a Node.js binary of this version that runs on Debian 13's glibc (made on first use). */
export async function newerGlibcNode(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`no Debian ${SUITE} runtime for ${process.platform}-${process.arch}`);
  const home = join(CACHE, process.versions.node);
  const node = join(home, 'node');
  if (await exists(node)) return node;
  await mkdir(CACHE, { recursive: true });
  const work = await mkdtemp(join(CACHE, 'making-'));
  try {
    await makeIn(work);
    await rename(work, home).catch(async (error: NodeJS.ErrnoException) => {
      // Another process made it first: theirs is whole, ours goes.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return node;
}

async function makeIn(work: string): Promise<void> {
  const apt = await privateApt(work);
  const debs = join(work, 'debs');
  await mkdir(debs);
  const wanted = PACKAGES.map((p) => `${p}/${SUITE}`);
  const ownPatchelf = await run('patchelf', ['--version']).then(
    () => 'patchelf',
    () => null,
  );
  if (!ownPatchelf) wanted.push(`patchelf/${await systemSuite()}`);
  await run('apt-get', [...apt, 'download', ...wanted], { cwd: debs });
  const root = join(work, 'root');
  const tools = join(work, 'tools');
  for (const deb of await readdir(debs)) await run('dpkg-deb', ['-x', join(debs, deb), deb.startsWith('patchelf_') ? tools : root]);
  await rm(debs, { recursive: true });
  const patchelf = ownPatchelf ?? join(tools, 'usr', 'bin', 'patchelf');
  const libraries = join(CACHE, process.versions.node, 'root', LIBRARIES);
  const node = join(work, 'node');
  await copyFile(process.execPath, node);
  // Paths of the folder once renamed into place. RPATH (not RUNPATH) also serves the libraries of
  // modules loaded later, so a C++ addon finds Debian 13's libstdc++ rather than the system's.
  await run(patchelf, ['--set-interpreter', join(libraries, 'ld-linux-x86-64.so.2'), '--force-rpath', '--set-rpath', libraries, node]);
  await writeFile(join(work, 'README'), `Node.js ${process.versions.node} on Debian ${SUITE}'s ${PACKAGES.join(', ')}: test/helpers/newer-glibc-node.ts\n`);
}

/** apt-get options for a package index of its own (Debian 13 and the system's release), in `work`. */
async function privateApt(work: string): Promise<string[]> {
  const state = join(work, 'apt');
  await mkdir(join(state, 'lists', 'partial'), { recursive: true });
  await mkdir(join(state, 'cache', 'archives', 'partial'), { recursive: true });
  const sources = join(state, 'sources.list');
  await writeFile(sources, [SUITE, await systemSuite()].map((suite) => `deb http://deb.debian.org/debian ${suite} main\n`).join(''));
  const options = [
    '-qq',
    '-o',
    `Dir::Etc::sourcelist=${sources}`,
    '-o',
    'Dir::Etc::sourceparts=-',
    '-o',
    `Dir::State::Lists=${join(state, 'lists')}`,
    '-o',
    `Dir::Cache=${join(state, 'cache')}`,
    '-o',
    'APT::Get::List-Cleanup=0',
  ];
  await run('apt-get', [...options, 'update'], { maxBuffer: 16 * 1024 * 1024 });
  return options;
}

/** The system's Debian release name (bookworm), from /etc/os-release. */
async function systemSuite(): Promise<string> {
  const { stdout } = await run('sh', ['-c', '. /etc/os-release && echo "$VERSION_CODENAME"']);
  const suite = stdout.trim();
  if (!/^[a-z]+$/.test(suite)) throw new Error('this is not a Debian system apt can fetch packages for (no VERSION_CODENAME in /etc/os-release)');
  return suite;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
