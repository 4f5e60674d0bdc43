// The SSRF matrix of the webhooks issue: destinations refused at request time and again at every
// delivery attempt. Names are answered by the DNS test server (see SSRF_DNS).
import type { DnsRecords } from './dns-test-server.js';

export const PUBLIC = '93.184.216.34';

export const REFUSED: Array<[string, string]> = [
  ['loopback', 'https://127.0.0.1/h'],
  ['IPv6 loopback', 'https://[::1]/h'],
  ['10/8', 'https://10.1.2.3/h'],
  ['172.16/12', 'https://172.16.0.1/h'],
  ['192.168/16', 'https://192.168.1.1/h'],
  ['metadata address', 'https://169.254.169.254/latest/meta-data'],
  ['CGNAT 100.64/10', 'https://100.64.0.1/h'],
  ['unique local fc00::/7', 'https://[fc00::1]/h'],
  ['link local fe80::/10', 'https://[fe80::1]/h'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/h'],
  ['0.0.0.0', 'https://0.0.0.0/h'],
  ['decimal IPv4', 'https://2130706433/h'],
  ['octal IPv4', 'https://0177.0.0.1/h'],
  ['a name resolving to a private address', 'https://private.test/h'],
  ['a name with a public A and a private AAAA', 'https://mixed.test/h'],
  ['a name that does not resolve', 'https://nowhere.test/h'],
  ['port 8443', 'https://public.test:8443/h'],
  ['http', 'http://public.test/h'],
  ['user info', 'https://user:pw@public.test/h'],
  ['a fragment', 'https://public.test/h#frag'],
  ['2,049 characters', `https://public.test/${'a'.repeat(2049 - 'https://public.test/'.length)}`],
];

export const SSRF_DNS: Record<string, DnsRecords> = {
  'public.test': { A: [PUBLIC] },
  'private.test': { A: ['10.0.0.5'] },
  'mixed.test': { A: [PUBLIC], AAAA: ['fd00::5'] },
};
