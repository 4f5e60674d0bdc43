// The check and the connection see the same DNS answer: a destination validated once is delivered to
// the address that validation saw, even though the name now answers something else (DNS rebinding).
// Real DNS over UDP, real HTTPS with TLS verified for the name; loopback allowed as in tests.
import t from 'tap';

import { DestinationRefusedError } from '../../src/webhooks/destination-refused-error.js';
import { postWebhook } from '../../src/webhooks/post-webhook.js';
import { createDestinationValidator } from '../../src/webhooks/validate-destination.js';
import { startDnsTestServer } from '../helpers/dns-test-server.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

t.test('the attempt goes to the validated address, not to a later DNS answer', async (t) => {
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const dns = await startDnsTestServer({
    'hooks.test': { A: (query) => (query === 1 ? ['127.0.0.1'] : ['10.255.255.1']) },
  });
  t.teardown(() => dns.close());
  const validate = createDestinationValidator({ allowLoopback: true, dnsServers: dns.servers });

  const destination = await validate(`https://hooks.test:${receiver.port}/hooks/stt?k=1`);
  t.same([destination.hostname, destination.address, destination.port], ['hooks.test', '127.0.0.1', receiver.port]);
  t.equal(dns.queries('hooks.test', 'A'), 1, 'one A question for the validation');

  const body = Buffer.from('{"id":"evt_pinned"}');
  const outcome = await postWebhook(destination, { 'content-type': 'application/json', 'webhook-id': 'evt_pinned' }, body, 10_000);
  t.same(outcome, { delivered: true, status: 204, summary: 'http 204' });
  t.equal(dns.queries('hooks.test', 'A'), 1, 'the attempt asked DNS nothing');

  const [request] = await receiver.waitForRequests(1);
  t.equal(request.headers.host, `hooks.test:${receiver.port}`, 'Host names the host (with its non-default port)');
  t.equal(request.servername, 'hooks.test', 'TLS was for hooks.test (and verified: the attempt succeeded)');
  t.equal(request.path, '/hooks/stt?k=1');
  t.ok(request.body.equals(body));

  // The next attempt validates again and sees the rebinding answer.
  await t.rejects(validate(`https://hooks.test:${receiver.port}/hooks/stt?k=1`), DestinationRefusedError);
  t.equal(dns.queries('hooks.test', 'A'), 2);
  t.equal(receiver.requests.length, 1, 'no request after the refusal');
});
