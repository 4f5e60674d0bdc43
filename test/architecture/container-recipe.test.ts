// The container recipe, checked without a Docker engine (none runs here): the Dockerfile builds with
// the same script CI runs and runs as a non-root user on pinned images; compose.yaml parses, names
// only pinned images (or the one it builds), sets only settings svc-stt reads, and those settings
// load (with the values its .env would give) for the role each process runs.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import { parse } from 'yaml';

import { loadConfig, SETTING_ENVIRONMENT_NAMES } from '../../src/config/load-config.js';
import { SERVICE_ROLES } from '../../src/config/service-config.js';
import { testModelPath } from '../helpers/test-models.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}/${file}`, 'utf8');

t.test('the Dockerfile: two stages on a pinned Node image, the CI build script, a non-root user', async (t) => {
  const dockerfile = read('Dockerfile');
  const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  t.equal(froms.length, 2, 'a build stage and a runtime stage');
  for (const image of froms) t.match(image, /^node:24\.\d+-trixie-slim$/, 'Node 24 LTS on Debian 13, whose glibc (2.41) loads uWebSockets.js, a pinned minor');
  t.match(dockerfile, /^RUN bash scripts\/build\.sh && npm prune --omit=dev/m, 'built by the script CI runs');
  t.match(read('.ci/run'), /^bash scripts\/build\.sh /m, 'CI runs that same script');
  t.match(dockerfile, /^COPY --from=build /m);
  t.match(
    dockerfile,
    /^RUN node --input-type=module -e "[^"]*uwsUnavailableReason\(\)[^"]*process\.exit\(1\)[^"]*"/m,
    'the build fails where uWebSockets.js cannot serve realtime',
  );
  t.match(dockerfile, /^USER node$/m, 'not root');
  t.match(dockerfile, /^ENTRYPOINT \["node", "bin\/svc-stt\.js"\]$/m);
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => m[1].split(/\s+/).slice(0, -1));
  t.ok(copied.length >= 8);
  for (const source of copied) t.ok(existsSync(`${ROOT}/${source}`), `COPY ${source}: it exists in the repository`);
  for (const ignored of read('.dockerignore').split('\n').filter(Boolean)) {
    t.notOk(copied.includes(ignored), `${ignored} is not both copied and ignored`);
  }
});

t.test('compose.yaml: PostgreSQL, MinIO, one api and two workers on pinned images and real settings', async (t) => {
  // Compose reads YAML 1.1 merge keys (<<: *settings), as parse does with `merge`.
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      { image?: string; build?: string; command?: string[]; environment?: Record<string, string>; deploy?: { replicas?: number }; stop_grace_period?: string }
    >;
  };
  const services = compose.services;
  t.same(Object.keys(services).sort(), ['api', 'minio', 'minio-bucket', 'postgres', 'worker']);
  t.equal(services.api.build, '.', 'the api image is built from this repository');
  t.equal(services.worker.image, services.api.image, 'workers run the same image');
  t.equal(services.worker.deploy?.replicas, 2);
  for (const [name, service] of Object.entries(services)) {
    const image = service.image!;
    if (image === 'svc-stt:local') continue;
    t.match(image, /^(?:postgres:15-bookworm|minio\/minio:RELEASE\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)$/, `${name}: a pinned official image (${image})`);
  }

  // The values a filled-in .env gives ${...}; the model is one of the test models.
  const dotEnv: Record<string, string> = {
    POSTGRES_PASSWORD: 'pw',
    MINIO_ROOT_PASSWORD: 'minio-pw',
    SVC_WEBHOOK_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    SVC_MODEL_FILE: 'model.bin',
  };
  const model = await testModelPath('micro');
  const interpolate = (value: string) =>
    String(value).replace(/\$\{(\w+)(?::[?-]([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => dotEnv[name] ?? fallback ?? '');
  for (const name of ['api', 'worker']) {
    const environment = Object.fromEntries(Object.entries(services[name].environment!).map(([key, value]) => [key, interpolate(value)]));
    for (const setting of Object.keys(environment)) t.ok(SETTING_ENVIRONMENT_NAMES.includes(setting), `${name}: ${setting} is a setting svc-stt reads`);
    t.match(environment.SVC_MODEL, /^\/models\/model\.bin$/);
    const [command, flag, role] = services[name].command!;
    t.same([command, flag], ['serve', '--role']);
    t.ok((SERVICE_ROLES as readonly string[]).includes(role), `${name} runs a role that exists (${role})`);
    t.equal(role, name);
    // Docker's default 10 s would SIGKILL a draining process: the grace covers the drain and one webhook attempt.
    const graceMs = Number(/^(\d+)s$/.exec(services[name].stop_grace_period ?? '')?.[1] ?? 0) * 1000;
    t.ok(graceMs >= Number(environment.SVC_DRAIN_MS) + 10_000, `${name}: stop_grace_period covers the drain`);
    const config = loadConfig({ ...environment, SVC_MODEL: model, SVC_DATA_DIR: t.testdir(), SVC_ROLE: role });
    t.match(config, {
      role,
      database: { url: /^postgres:\/\/svc:pw@postgres:5432\/svc$/ },
      storage: { s3: { bucket: 'svc-stt', endpoint: 'http://minio:9000', forcePathStyle: true } },
    });
  }
  t.equal(read('.env.example').match(/^[A-Z_]+=/gm)?.length, Object.keys(dotEnv).length, '.env.example names what compose.yaml requires');
});
