// The registry behind 405 answers: find-my-way patterns matched against concrete request paths.
import t from 'tap';

import { compileRoutePattern, RouteMethodRegistry } from '../../src/api/route-methods.js';

t.test('compileRoutePattern', async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['/v1/jobs', ['/v1/jobs'], ['/v1/jobs/', '/v1/job', '/v1/jobsx', '/V1/jobs']],
    ['/v1/jobs/:job_id', ['/v1/jobs/abc', '/v1/jobs/a.b'], ['/v1/jobs/', '/v1/jobs/a/b', '/v1/jobs']],
    ['/v1/jobs/:job_id/complete', ['/v1/jobs/abc/complete'], ['/v1/jobs/abc', '/v1/jobs//complete']],
    ['/v1/openapi.json', ['/v1/openapi.json'], ['/v1/openapiXjson']],
    ['/files/:name.json', ['/files/a.json'], ['/files/.json', '/files/a.txt']],
    ['/n/:id(^\\d+$)', ['/n/42'], ['/n/abc']],
    ['/static/*', ['/static/', '/static/a/b'], ['/stat']],
    ['/time/10::30', ['/time/10:30'], ['/time/10::30']],
  ];
  for (const [pattern, matches, misses] of cases) {
    const re = compileRoutePattern(pattern);
    for (const path of matches) t.ok(re.test(path), `${pattern} matches ${path}`);
    for (const path of misses) t.notOk(re.test(path), `${pattern} does not match ${path}`);
  }
});

t.test('RouteMethodRegistry', async (t) => {
  const registry = new RouteMethodRegistry();
  registry.record({ method: 'GET', url: '/v1/jobs/:job_id' });
  registry.record({ method: 'HEAD', url: '/v1/jobs/:job_id' });
  registry.record({ method: ['DELETE', 'get'], url: '/v1/jobs/:job_id' });
  registry.record({ method: 'POST', url: '/v1/jobs' });
  t.same(registry.allowedMethods('/v1/jobs/j1'), ['DELETE', 'GET', 'HEAD']);
  t.same(registry.allowedMethods('/v1/jobs'), ['POST']);
  t.same(registry.allowedMethods('/v1/nothing'), []);
});
