// Benches that deliver webhooks serve them from the tests' HTTPS receiver, whose certificate the test
// certificate authority signs: `npm test` makes the authority and trusts it, a bench does it here.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Makes the test certificates if need be and sets NODE_EXTRA_CA_CERTS in this process's environment,
 * which the service processes the bench starts inherit (the receiver checks it is set).
 */
export function trustTestCertificateAuthority(): string {
  const printed = execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'make-test-certificates.mjs')], { encoding: 'utf8' });
  const path = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(printed)?.[1];
  if (!path) throw new Error(`make-test-certificates printed no NODE_EXTRA_CA_CERTS: ${printed}`);
  process.env.NODE_EXTRA_CA_CERTS = path;
  return path;
}
