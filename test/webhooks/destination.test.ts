// Webhook destination rules (contract, webhook rule 8): HTTPS, port 443, no user information, no
// fragment, at most 2,048 characters, and every address the host resolves to public — checked against
// a real DNS server on loopback, so the resolver, the wire answers and the refusals are all real.
import t, { type Test } from 'tap';

import { validateWebhookUrl } from '../../src/contract/webhook-url.js';
import { UnprocessableRequest } from '../../src/pipeline/pipeline-errors.js';
import type { DestinationPolicy } from '../../src/webhooks/destination-policy.js';
import { DestinationRefusedError } from '../../src/webhooks/destination-refused-error.js';
import { createDestinationValidator, type ValidatedDestination } from '../../src/webhooks/validate-destination.js';
import { startDnsTestServer } from '../helpers/dns-test-server.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

const dns = await startDnsTestServer({
  'public.test': { A: [PUBLIC_V4] },
  'port.test': { A: [PUBLIC_V4] },
  'v6.test': { AAAA: [PUBLIC_V6] },
  'dual.test': { A: [PUBLIC_V4, '93.184.216.35'], AAAA: [PUBLIC_V6] },
  'private.test': { A: ['10.0.0.5'] },
  'metadata.test': { A: [PUBLIC_V4, '169.254.169.254'] },
  'mixed.test': { A: [PUBLIC_V4], AAAA: ['fd00::1'] },
  'mapped.test': { AAAA: ['::ffff:10.0.0.1'] },
  'nat64.test': { AAAA: ['64:ff9b::a00:1'] },
  'empty.test': {},
  'broken.test': { servfail: true },
  'rebind.test': { A: (n) => (n === 1 ? [PUBLIC_V4] : ['10.0.0.1']) },
  'loopback.test': { A: ['127.0.0.1'], AAAA: ['::1'] },
  'half-loopback.test': { A: ['127.0.0.1', PUBLIC_V4] },
});
t.teardown(() => dns.close());

const policy = (allowLoopback: boolean): DestinationPolicy => ({ allowLoopback, dnsServers: dns.servers });

async function refusal(t: Test, validate: (url: string) => Promise<ValidatedDestination>, url: string): Promise<DestinationRefusedError | null> {
  try {
    const accepted = await validate(url);
    t.fail(`refused: ${url}`, { address: accepted.address });
    return null;
  } catch (error) {
    t.type(error, DestinationRefusedError, `refused: ${url.slice(0, 80)}`);
    const reason = (error as DestinationRefusedError).reason;
    const host = (() => {
      try {
        return new URL(url).hostname.replace(/^\[|\]$/g, '');
      } catch {
        return url;
      }
    })();
    // The reason goes back to the client: it must not let anyone read our DNS through it.
    const leaked = [url, host, '10.0.0', '169.254', 'fd00', '127.0.0.1'].filter((text) => reason.includes(text));
    t.same(leaked, [], 'the reason echoes neither the URL, the host nor an address');
    return error as DestinationRefusedError;
  }
}

t.test('SSRF matrix: internal, special and malformed destinations are refused', async (t) => {
  const validate = createDestinationValidator(policy(false));
  const literals = [
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://10.1.2.3/hook',
    'https://172.16.0.1/hook',
    'https://172.31.255.255/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/hook',
    'https://[fc00::1]/hook',
    'https://[fd12::1]/hook',
    'https://[fe80::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[::127.0.0.1]/hook', // IPv4-compatible (deprecated)
    'https://[64:ff9b::a00:1]/hook', // NAT64 embedding 10.0.0.1
    'https://[2002:a00:1::1]/hook', // 6to4 embedding 10.0.0.1
    'https://[2001:0:a00:1::1]/hook', // Teredo
    'https://[ff02::1]/hook',
    'https://0.0.0.0/hook',
    'https://[::]/hook',
    'https://224.0.0.1/hook',
    'https://255.255.255.255/hook',
    'https://192.0.2.10/hook', // documentation
    'https://198.18.0.1/hook', // benchmarking
    'https://240.0.0.1/hook', // reserved
    'https://2130706433/hook', // 127.0.0.1 in decimal
    'https://0177.0.0.1/hook', // 127.0.0.1 in octal
    'https://0x7f.1/hook', // 127.0.0.1 in hex, short form
  ];
  for (const url of literals) {
    const error = await refusal(t, validate, url);
    t.equal(error?.reason, 'the address is not public', `reason for ${url}`);
  }
  t.equal(new URL('https://2130706433/').hostname, '127.0.0.1', 'the URL parser normalises decimal IPv4');
  t.equal(new URL('https://0177.0.0.1/').hostname, '127.0.0.1', 'the URL parser normalises octal IPv4');

  for (const name of ['private.test', 'metadata.test', 'mixed.test', 'mapped.test', 'nat64.test']) {
    const error = await refusal(t, validate, `https://${name}/hook`);
    t.equal(error?.reason, 'the host name resolves to a non-public address', `reason for ${name}`);
  }
  t.equal(dns.queries('mixed.test', 'AAAA'), 1, 'the AAAA records were asked for as well as the A records');

  t.equal((await refusal(t, validate, 'https://unknown.test/hook'))?.reason, 'the host name does not resolve');
  t.equal((await refusal(t, validate, 'https://empty.test/hook'))?.reason, 'the host name does not resolve');
  t.equal((await refusal(t, validate, 'https://broken.test/hook'))?.reason, 'the host name could not be resolved (DNS failure)');

  t.equal((await refusal(t, validate, 'https://port.test:8443/hook'))?.reason, 'the port must be 443');
  t.equal(dns.queries('port.test'), 0, 'a wrong port is refused before any DNS question');
  t.equal((await refusal(t, validate, 'http://public.test/hook'))?.reason, 'the URL must use https');
  t.equal((await refusal(t, validate, 'https://user:pw@public.test/hook'))?.reason, 'the URL must not contain user information');
  t.equal((await refusal(t, validate, 'https://user@public.test/hook'))?.reason, 'the URL must not contain user information');
  t.equal((await refusal(t, validate, 'https://public.test/hook#frag'))?.reason, 'the URL must not contain a fragment');
  t.equal((await refusal(t, validate, 'https://public.test/hook#'))?.reason, 'the URL must not contain a fragment');
  t.equal((await refusal(t, validate, 'not a url'))?.reason, 'the URL must be an absolute URL');
  const long = `https://public.test/${'a'.repeat(2049 - 'https://public.test/'.length)}`;
  t.equal(long.length, 2049);
  t.equal((await refusal(t, validate, long))?.reason, 'the URL is at most 2048 characters');
});

t.test('public destinations are accepted with the address to connect to (no connection is made)', async (t) => {
  const validate = createDestinationValidator(policy(false));
  const byName = await validate('https://public.test/hooks/stt?tenant=a');
  t.same(
    { hostname: byName.hostname, address: byName.address, family: byName.family, port: byName.port },
    { hostname: 'public.test', address: PUBLIC_V4, family: 4, port: 443 },
  );
  t.equal(`${byName.url.pathname}${byName.url.search}`, '/hooks/stt?tenant=a');

  const explicitPort = await validate('https://public.test:443/hook');
  t.equal(explicitPort.port, 443, 'an explicit :443 is fine');

  const dual = await validate('https://dual.test/hook');
  t.equal(dual.address, PUBLIC_V4, 'IPv4 is preferred when both families answer');
  t.equal(dual.family, 4);

  const v6 = await validate('https://v6.test/hook');
  t.same([v6.address, v6.family], [PUBLIC_V6, 6], 'an IPv6-only host is fine (no A records is not an error)');

  const literal = await validate(`https://${PUBLIC_V4}/hook`);
  t.same([literal.hostname, literal.address, literal.family], [PUBLIC_V4, PUBLIC_V4, 4]);
  const literal6 = await validate(`https://[${PUBLIC_V6}]/hook`);
  t.same([literal6.hostname, literal6.address, literal6.family], [PUBLIC_V6, PUBLIC_V6, 6], 'no brackets in hostname');
  const mapped = await validate('https://[::ffff:93.184.216.34]/hook');
  t.same([mapped.address, mapped.family], [PUBLIC_V4, 4], 'an IPv4-mapped literal connects to the IPv4 address it embeds');
});

t.test('rebinding: each validation asks DNS again and judges the new answer', async (t) => {
  const validate = createDestinationValidator(policy(false));
  const first = await validate('https://rebind.test/hook');
  t.equal(first.address, PUBLIC_V4, 'public at the first question');
  t.equal((await refusal(t, validate, 'https://rebind.test/hook'))?.reason, 'the host name resolves to a non-public address');
  t.equal(dns.queries('rebind.test', 'A'), 2, 'one A question per validation');
});

t.test('allowLoopback (tests only): loopback on any port, nothing else', async (t) => {
  const validate = createDestinationValidator(policy(true));
  const v4 = await validate('https://127.0.0.1:8443/hook');
  t.same([v4.address, v4.port], ['127.0.0.1', 8443], 'loopback literal on another port passes');
  const v6 = await validate('https://[::1]:9/hook');
  t.same([v6.address, v6.family, v6.port], ['::1', 6, 9]);
  const named = await validate('https://loopback.test:8443/hook');
  t.same([named.address, named.family], ['127.0.0.1', 4]);

  for (const url of ['https://10.0.0.1/hook', 'https://169.254.169.254/hook', 'https://[fd00::1]/hook', 'https://0.0.0.0:8443/hook']) {
    t.equal((await refusal(t, validate, url))?.reason, 'the address is not public');
  }
  t.equal((await refusal(t, validate, 'https://private.test/hook'))?.reason, 'the host name resolves to a non-public address');
  t.equal((await refusal(t, validate, 'https://public.test:8443/hook'))?.reason, 'the port must be 443', 'the port rule holds for public hosts');
  t.equal((await refusal(t, validate, 'https://half-loopback.test:8443/hook'))?.reason, 'the port must be 443', 'and when any address is not loopback');
  t.ok(await validate('https://half-loopback.test/hook'), 'loopback plus public on 443 passes');
});

t.test('a DNS server that is down or silent refuses, and does not hang', async (t) => {
  const { createSocket } = await import('node:dgram');
  // Bound then closed: nothing listens there, so the kernel answers "port unreachable".
  const closed = createSocket('udp4');
  await new Promise<void>((resolve) => closed.bind(0, '127.0.0.1', () => resolve()));
  const closedPort = closed.address().port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const down = createDestinationValidator({ allowLoopback: false, dnsServers: [`127.0.0.1:${closedPort}`] });
  t.equal((await refusal(t, down, 'https://public.test/hook'))?.reason, 'the host name could not be resolved (DNS failure)');

  // Listening but never answering: only the resolver's own time bound ends the lookup.
  const silent = createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => silent.close(() => resolve())));
  let questions = 0;
  silent.on('message', () => questions++);
  const mute = createDestinationValidator({ allowLoopback: false, dnsServers: [`127.0.0.1:${silent.address().port}`] });
  t.equal((await refusal(t, mute, 'https://public.test/hook'))?.reason, 'the host name could not be resolved (DNS failure)');
  t.ok(questions > 0, 'the silent server was asked');
});

t.test('a malformed DNS server setting fails when the validator is made', async (t) => {
  t.throws(() => createDestinationValidator({ allowLoopback: false, dnsServers: ['not an address'] }));
});

t.test('the request-time syntax check leaves the port to the destination check', async (t) => {
  // With allowLoopback a loopback receiver may use any port, which only the addresses can tell.
  t.equal(validateWebhookUrl('https://example.com:8443/hook'), 'https://example.com:8443/hook');
  t.equal(validateWebhookUrl('https://example.com:443/hook'), 'https://example.com/hook');
  for (const [url, message] of [
    ['http://example.com/hook', 'webhook_url must use https'],
    ['https://user:pw@example.com/hook', 'webhook_url must not contain user information'],
    ['https://example.com/hook#frag', 'webhook_url must not contain a fragment'],
    ['example.com/hook', 'webhook_url must be an absolute URL'],
    [`https://example.com/${'a'.repeat(2030)}`, 'webhook_url is at most 2048 characters'],
  ]) {
    // The API answers it 422 invalid_request with this message (test/api/error-mapping.test.ts).
    t.throws(() => validateWebhookUrl(url), { constructor: UnprocessableRequest, kind: 'unprocessable_request', message }, message);
  }
});
