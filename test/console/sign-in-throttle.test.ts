// What the per-address sign-in limit counts by (src/console/sign-in-throttle.ts throttledAddress):
// an IPv4 address as it is; an IPv6 address by its /64, so a client cannot take a fresh address of
// its network for every attempt. (The limit itself is tested served: console-http and sign-in-limit-shared.)
import t from 'tap';

import { throttledAddress } from '../../src/console/sign-in-throttle.js';

t.test('IPv4 as it is; IPv6 by its /64, however written', async (t) => {
  t.equal(throttledAddress('203.0.113.7'), '203.0.113.7');
  t.equal(throttledAddress('::ffff:203.0.113.7'), '203.0.113.7', 'IPv4-mapped: the IPv4 address');
  t.equal(throttledAddress('::FFFF:203.0.113.7'), '203.0.113.7');
  for (const address of ['2001:db8:0:1::1', '2001:db8:0:1:ffff:ffff:ffff:ffff', '2001:0DB8:0000:0001:0:0:0:2', '2001:db8:0:1::abcd%eth0']) {
    t.equal(throttledAddress(address), '2001:db8:0:1::/64', address);
  }
  t.equal(throttledAddress('2001:db8:0:2::1'), '2001:db8:0:2::/64', 'another /64: its own count');
  t.equal(throttledAddress('::1'), '0:0:0:0::/64');
  t.equal(throttledAddress('fe80::1%lo0'), 'fe80:0:0:0::/64');
  t.equal(throttledAddress('2001:db8::'), '2001:db8:0:0::/64');
  t.equal(throttledAddress('not an address'), 'not an address', 'anything else as it is');
});
