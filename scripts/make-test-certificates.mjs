// A test certificate authority and a server certificate it signed, for the real-HTTPS webhook tests.
// Made once with the openssl CLI into test/.cache/tls/ (git-ignored); tests trust the CA through
// NODE_EXTRA_CA_CERTS, the same way an operator would trust a private CA, so no test turns TLS
// verification off. Server names: hooks.test, localhost, 127.0.0.1 and ::1.
//   node scripts/make-test-certificates.mjs   prints the NODE_EXTRA_CA_CERTS setting for the tests
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const tlsDir = join(root, 'test', '.cache', 'tls');
export const testCertificates = {
  ca: join(tlsDir, 'ca.pem'),
  cert: join(tlsDir, 'server.pem'),
  key: join(tlsDir, 'server-key.pem'),
};

const SERVER_NAMES = 'DNS:hooks.test,DNS:localhost,IP:127.0.0.1,IP:::1';
const DAYS = '3650';

/** Makes the files unless they all exist; returns their paths. */
export function makeTestCertificates() {
  if (Object.values(testCertificates).every((path) => existsSync(path))) return testCertificates;
  mkdirSync(dirname(tlsDir), { recursive: true });
  // Built aside and renamed into place, so a concurrent run never sees half a set.
  const work = mkdtempSync(join(dirname(tlsDir), 'tls-'));
  try {
    const at = (name) => join(work, name);
    const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl([
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      at('ca-key.pem'),
      '-out',
      at('ca.pem'),
      '-days',
      DAYS,
      '-subj',
      '/CN=svc-stt test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    openssl(['req', '-new', ...ecKey, '-keyout', at('server-key.pem'), '-out', at('server.csr'), '-subj', '/CN=hooks.test']);
    writeFileSync(
      at('server.ext'),
      [
        `subjectAltName=${SERVER_NAMES}`,
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        '',
      ].join('\n'),
    );
    openssl([
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca-key.pem'),
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-days',
      DAYS,
      '-extfile',
      at('server.ext'),
      '-out',
      at('server.pem'),
    ]);
    rmSync(tlsDir, { recursive: true, force: true });
    try {
      renameSync(work, tlsDir);
    } catch (error) {
      // Another run got there first with a complete set.
      if (!Object.values(testCertificates).every((path) => existsSync(path))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return testCertificates;
}

/**
 * The file for NODE_EXTRA_CA_CERTS: the test CA, plus whatever the environment already trusts that
 * way (the variable takes a single file, and replacing it could break TLS through a local proxy).
 */
export function extraCaCertificates(current = process.env.NODE_EXTRA_CA_CERTS) {
  const { ca } = makeTestCertificates();
  if (!current || current === ca || !existsSync(current)) return ca;
  const existing = readFileSync(current, 'utf8');
  const ours = readFileSync(ca, 'utf8');
  if (existing.includes(ours.trim())) return current;
  const bundle = join(tlsDir, 'extra-ca-bundle.pem');
  const partial = `${bundle}.${process.pid}`;
  writeFileSync(partial, `${existing.trimEnd()}\n${ours}`);
  renameSync(partial, bundle);
  return bundle;
}

function openssl(args) {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error('the openssl command is needed to make test certificates (apt-get install openssl)', { cause: error });
    throw new Error(`openssl ${args[0]} failed: ${error.stderr?.toString().trim() ?? error.message}`, { cause: error });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`export NODE_EXTRA_CA_CERTS=${extraCaCertificates()}`);
}
