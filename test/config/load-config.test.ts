// loadConfig: defaults, environment, the SVC_CONFIG file (env wins), and every problem reported at
// once, one line each, naming the variable.
import { chmodSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import t, { type Test } from 'tap';

import { ConfigError } from '../../src/config/config-error.js';
import { defaultPublicBaseUrl, loadConfig, loadDataDir } from '../../src/config/load-config.js';
import { DEFAULTS } from '../../src/config/service-config.js';
import { defaultVadModelPath } from '../../src/models/vad-model-path.js';

/** A folder with two (fake) model files; loadConfig only checks that they are readable files. */
function models(t: Test) {
  const dir = t.testdir({ 'flagship.bin': 'ggml', 'edge.bin': 'ggml', sub: {} });
  return { dir, flagship: join(dir, 'flagship.bin'), edge: join(dir, 'edge.bin') };
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) {
      // The message is the list, one problem per line.
      const lines = error.message.split('\n');
      if (lines[0] !== 'invalid configuration:' || lines.length !== error.problems.length + 1) throw new Error('unexpected message shape', { cause: error });
      return [...error.problems];
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

t.test('only SVC_MODEL given: defaults everywhere else', async (t) => {
  const { flagship } = models(t);
  const config = loadConfig({ SVC_MODEL: flagship });
  t.same(config, {
    role: 'all',
    dataDir: resolve('./data'),
    database: { url: null },
    storage: { s3: null },
    metricsPort: null,
    metricsTenantLabels: 0,
    lifecycle: { drainMs: 30_000, instanceTtlMs: 30_000, keyWatchMs: 1_000 },
    host: '127.0.0.1',
    port: 8080,
    realtimePort: 8081,
    consolePort: 8082,
    realtimeTransport: 'auto',
    models: { 'svc-medical-1': flagship, 'svc-medical-edge-1': flagship },
    vad: { enabled: true, model: defaultVadModelPath() },
    wordAlignment: 'tokens',
    inlineBoundarySeconds: 60,
    maxAudioSeconds: 7200,
    minAudioSeconds: 1,
    maxUploadBytes: 100_000_000,
    retentionHours: 24,
    pool: { maxQueue: 16 },
    upload: { ...DEFAULTS.upload },
    rateLimitPerMinute: DEFAULTS.rateLimitPerMinute,
    connections: DEFAULTS.connections,
    decodeTimeoutMs: DEFAULTS.decodeTimeoutMs,
    decoding: { ...DEFAULTS.decoding },
    jobs: { chunkSeconds: 300, uploadExpirySeconds: 3600 },
    webhooks: { masterKey: null, previousMasterKeys: [], kms: null, allowLoopback: false, dnsServers: null, attemptTimeoutMs: 10_000 },
    publicBaseUrl: 'http://127.0.0.1:8080',
    logLevel: 'info',
  });
});

t.test('every environment variable', async (t) => {
  const { dir, flagship, edge } = models(t);
  const config = loadConfig({
    SVC_DATA_DIR: join(dir, 'data'),
    SVC_HOST: '0.0.0.0',
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_MODEL: flagship,
    SVC_EDGE_MODEL: edge,
    SVC_INLINE_BOUNDARY_SECONDS: '30.5',
    SVC_MAX_AUDIO_SECONDS: '600',
    SVC_RETENTION_HOURS: '72',
    SVC_WORKERS: '2',
    SVC_THREADS_PER_WORKER: '3',
    SVC_MAX_QUEUE: '4',
    SVC_RATE_LIMIT_PER_MINUTE: '60',
    SVC_UPLOAD_IDLE_TIMEOUT_MS: '5000',
    SVC_UPLOAD_MIN_BYTES_PER_SECOND: '0',
    SVC_DECODE_TIMEOUT_MS: '1000',
    SVC_MAX_TOKENS: '16',
    SVC_BEAM_SIZE: '5',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_PUBLIC_BASE_URL: 'https://stt.example.com/base/',
    SVC_LOG_LEVEL: 'warn',
    SVC_WEBHOOK_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
    SVC_WEBHOOK_DNS_SERVERS: '127.0.0.1:5353, [::1]:53',
    SVC_WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    SVC_WORD_ALIGNMENT: 'dtw',
    SVC_REALTIME_TRANSPORT: 'ws',
  });
  t.match(config, {
    wordAlignment: 'dtw',
    realtimeTransport: 'ws',
    dataDir: join(dir, 'data'),
    host: '0.0.0.0',
    port: 0,
    realtimePort: 0,
    models: { 'svc-medical-1': flagship, 'svc-medical-edge-1': edge },
    inlineBoundarySeconds: 30.5,
    maxAudioSeconds: 600,
    retentionHours: 72,
    pool: { workers: 2, threadsPerWorker: 3, maxQueue: 4 },
    rateLimitPerMinute: 60,
    upload: { idleTimeoutMs: 5000, minBytesPerSecond: 0 },
    decodeTimeoutMs: 1000,
    decoding: { maxTokens: 16, beamSize: 5, temperatureFallback: false },
    publicBaseUrl: 'https://stt.example.com/base',
    logLevel: 'warn',
    webhooks: {
      masterKey: Buffer.alloc(32, 7).toString('base64'),
      allowLoopback: true,
      dnsServers: ['127.0.0.1:5353', '[::1]:53'],
      attemptTimeoutMs: 2000,
    },
  });
});

t.test('webhook settings: a master key that is not 32 bytes and a DNS server that is not an address are refused', async (t) => {
  const { flagship } = models(t);
  const problems = problemsOf(() =>
    loadConfig({ SVC_MODEL: flagship, SVC_WEBHOOK_MASTER_KEY: Buffer.alloc(16).toString('base64'), SVC_WEBHOOK_DNS_SERVERS: 'dns.example' }),
  );
  t.match(problems.join('\n'), /SVC_WEBHOOK_MASTER_KEY must be base64 of exactly 32 bytes/);
  t.match(problems.join('\n'), /SVC_WEBHOOK_DNS_SERVERS has an entry that is not an IP address/);
});

t.test('previous master keys: a comma-separated list of 32-byte base64 keys, or refused', async (t) => {
  const { flagship } = models(t);
  const [a, b] = [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64')];
  t.same(loadConfig({ SVC_MODEL: flagship, SVC_PREVIOUS_MASTER_KEYS: ` ${a}, ${b} ` }).webhooks.previousMasterKeys, [a, b]);
  const problems = problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_PREVIOUS_MASTER_KEYS: `${a},${Buffer.alloc(16).toString('base64')}` }));
  t.match(problems.join('\n'), /SVC_PREVIOUS_MASTER_KEYS must be comma-separated base64 keys of exactly 32 bytes each/);
});

t.test('relative paths: from the working directory in the environment', async (t) => {
  const { flagship } = models(t);
  const config = loadConfig({ SVC_MODEL: flagship, SVC_DATA_DIR: 'var/svc' });
  t.equal(config.dataDir, resolve('var/svc'));
});

t.test('SVC_CONFIG file: each variable without SVC_, camelCase; paths relative to the file; environment wins', async (t) => {
  const { dir } = models(t);
  const file = join(dir, 'svc.json');
  writeFileSync(
    file,
    JSON.stringify({
      dataDir: 'state',
      port: 9000,
      host: '::',
      model: 'flagship.bin',
      edgeModel: 'edge.bin',
      workers: 3,
      maxQueue: 32,
      uploadMinRateGraceMs: 2000,
      temperatureFallback: false,
      publicUnreadTimeoutMs: 2500,
      s3Bucket: 'audio',
      s3Region: 'eu-west-1',
      logLevel: 'debug',
    }),
  );
  const fromFile = loadConfig({ SVC_CONFIG: file });
  t.match(fromFile, {
    dataDir: join(dir, 'state'),
    port: 9000,
    models: { 'svc-medical-1': join(dir, 'flagship.bin'), 'svc-medical-edge-1': join(dir, 'edge.bin') },
    pool: { workers: 3, maxQueue: 32 },
    upload: { minRateGraceMs: 2000, idleTimeoutMs: DEFAULTS.upload.idleTimeoutMs },
    connections: { public: { unreadTimeoutMs: 2500 } },
    storage: { s3: { bucket: 'audio', region: 'eu-west-1' } },
    decoding: { temperatureFallback: false },
    publicBaseUrl: 'http://[::1]:9000',
    logLevel: 'debug',
  });
  const overridden = loadConfig({ SVC_CONFIG: file, SVC_PORT: '9100', SVC_WORKERS: '1', SVC_DATA_DIR: '/srv/svc', SVC_EDGE_MODEL: join(dir, 'flagship.bin') });
  t.match(overridden, { port: 9100, pool: { workers: 1, maxQueue: 32 }, dataDir: '/srv/svc', models: { 'svc-medical-edge-1': join(dir, 'flagship.bin') } });
  t.equal(loadDataDir({ SVC_CONFIG: file }), join(dir, 'state'));
  t.equal(loadDataDir({ SVC_CONFIG: file, SVC_DATA_DIR: '/x' }), '/x');
  t.equal(loadDataDir({}), resolve('./data'));
});

t.test('SVC_MODEL and SVC_EDGE_MODEL take a model name as `transcribe --model` does (ggml-NAME.bin in SVC_MODELS_DIR)', async (t) => {
  const dir = t.testdir({ 'ggml-base.bin': 'ggml', 'ggml-tiny.bin': 'ggml', 'svc.json': JSON.stringify({ model: 'tiny' }) });
  const config = loadConfig({ SVC_MODELS_DIR: dir, SVC_MODEL: 'base', SVC_EDGE_MODEL: 'tiny' });
  t.same(config.models, { 'svc-medical-1': join(dir, 'ggml-base.bin'), 'svc-medical-edge-1': join(dir, 'ggml-tiny.bin') });
  t.equal(loadConfig({ SVC_MODELS_DIR: dir, SVC_CONFIG: join(dir, 'svc.json') }).models['svc-medical-1'], join(dir, 'ggml-tiny.bin'), 'in the file too');
  t.same(
    problemsOf(() => loadConfig({ SVC_MODELS_DIR: dir, SVC_MODEL: 'base', SVC_EDGE_MODEL: 'small' })),
    [`SVC_EDGE_MODEL names model 'small', which is not downloaded (no file ${join(dir, 'ggml-small.bin')}); get it with: npx svc-stt models download small`],
  );
});

t.test('an empty variable counts as unset', async (t) => {
  const { flagship } = models(t);
  t.equal(loadConfig({ SVC_MODEL: flagship, SVC_PORT: '' }).port, 8080);
  t.same(
    problemsOf(() => loadConfig({ SVC_MODEL: '' })),
    ['SVC_MODEL is required: the model file for svc-medical-1 (get one with `npx svc-stt models download NAME`)'],
  );
});

t.test('every problem at once, each on its own line naming its variable', async (t) => {
  const { dir } = models(t);
  const problems = problemsOf(() =>
    loadConfig({
      SVC_PORT: 'http',
      SVC_REALTIME_PORT: '70000',
      SVC_EDGE_MODEL: join(dir, 'missing.bin'),
      SVC_RETENTION_HOURS: '0',
      SVC_WORKERS: '1.5',
      SVC_THREADS_PER_WORKER: '-2',
      SVC_MAX_QUEUE: '0',
      SVC_INLINE_BOUNDARY_SECONDS: 'abc',
      SVC_MAX_AUDIO_SECONDS: '-1',
      SVC_UPLOAD_IDLE_TIMEOUT_MS: '0',
      SVC_DECODE_TIMEOUT_MS: '10s',
      SVC_BEAM_SIZE: '17',
      SVC_MAX_TOKENS: '-1',
      SVC_RATE_LIMIT_PER_MINUTE: '0',
      SVC_TEMPERATURE_FALLBACK: 'maybe',
      SVC_PUBLIC_BASE_URL: 'ftp://example.com',
      SVC_LOG_LEVEL: 'loud',
      SVC_HOST: 'http://example.com/',
      SVC_REALTIME_TRANSPORT: 'socketio',
    }),
  );
  const expected: Array<[string, RegExp]> = [
    ['SVC_HOST', /must be a host name or an IP address/],
    ['SVC_PORT', /must be an integer from 0 to 65535 \(got "http"\)/],
    ['SVC_REALTIME_PORT', /must be an integer from 0 to 65535 \(got "70000"\)/],
    ['SVC_MODEL', /is required: the model file for svc-medical-1/],
    ['SVC_EDGE_MODEL', /names a model file that does not exist: .*missing\.bin/],
    ['SVC_INLINE_BOUNDARY_SECONDS', /must be a number greater than 0 \(got "abc"\)/],
    ['SVC_MAX_AUDIO_SECONDS', /must be a number greater than 0/],
    ['SVC_RETENTION_HOURS', /must be an integer from 1 to 72/],
    ['SVC_WORKERS', /must be an integer from 1 to 256/],
    ['SVC_THREADS_PER_WORKER', /must be an integer from 1 to 1024/],
    ['SVC_MAX_QUEUE', /must be an integer from 1 to/],
    ['SVC_UPLOAD_IDLE_TIMEOUT_MS', /must be an integer from 1 to/],
    ['SVC_RATE_LIMIT_PER_MINUTE', /must be an integer from 1 to/],
    ['SVC_DECODE_TIMEOUT_MS', /must be an integer from 1 to/],
    ['SVC_BEAM_SIZE', /must be an integer from 1 to 16/],
    ['SVC_MAX_TOKENS', /must be an integer from 0 to/],
    ['SVC_TEMPERATURE_FALLBACK', /must be true or false/],
    ['SVC_PUBLIC_BASE_URL', /must be an http\(s\) URL/],
    ['SVC_LOG_LEVEL', /must be one of fatal, error, warn, info, debug, trace, silent/],
    ['SVC_REALTIME_TRANSPORT', /must be one of auto, uws, ws/],
  ];
  for (const [variable, pattern] of expected) {
    const line = problems.find((problem) => problem.startsWith(`${variable} `));
    t.ok(line, `${variable} is reported`);
    t.match(line, pattern, variable);
  }
  t.equal(problems.length, expected.length, 'one line per problem, nothing else');
});

t.test('cross-setting rules', async (t) => {
  const { flagship } = models(t);
  t.same(
    problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_INLINE_BOUNDARY_SECONDS: '120', SVC_MAX_AUDIO_SECONDS: '60' })),
    ['SVC_INLINE_BOUNDARY_SECONDS (120) must not exceed SVC_MAX_AUDIO_SECONDS (60)'],
  );
  t.same(
    problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_PORT: '9000', SVC_REALTIME_PORT: '9000' })),
    ['SVC_REALTIME_PORT must differ from SVC_PORT (both are 9000)'],
  );
  t.equal(loadConfig({ SVC_MODEL: flagship, SVC_INLINE_BOUNDARY_SECONDS: '60', SVC_MAX_AUDIO_SECONDS: '60' }).inlineBoundarySeconds, 60);
});

t.test('model files must be readable files', async (t) => {
  const { dir, flagship } = models(t);
  t.match(
    problemsOf(() => loadConfig({ SVC_MODEL: join(dir, 'sub') })),
    [/^SVC_MODEL must name a model file, but .*sub is not a file$/],
  );
  if (process.getuid?.() !== 0) {
    // root reads any file, so this case can only be seen as an ordinary user.
    chmodSync(flagship, 0o000);
    t.match(
      problemsOf(() => loadConfig({ SVC_MODEL: flagship })),
      [/^SVC_MODEL names a model file this process cannot read/],
    );
    chmodSync(flagship, 0o644);
  }
});

t.test('data folder that is a file', async (t) => {
  const { flagship } = models(t);
  t.match(
    problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_DATA_DIR: flagship })),
    [/^SVC_DATA_DIR \(.*\) exists and is not a folder$/],
  );
});

t.test('config file problems name the file and the setting', async (t) => {
  const { dir, flagship } = models(t);
  const file = join(dir, 'svc.json');
  writeFileSync(
    file,
    JSON.stringify({ port: '8080', retentionHours: 100, prot: 1, maxQeue: 2, SVC_WORKERS: 2, pool: { maxQueue: 2 }, zzz: 1, model: 'missing.bin' }),
  );
  const problems = problemsOf(() => loadConfig({ SVC_CONFIG: file }));
  t.match(problems, [
    `'port' in ${file} must be an integer from 0 to 65535 (got "8080")`,
    /^'model' in .* names a model file that does not exist: .*missing\.bin$/,
    `'retentionHours' in ${file} must be an integer from 1 to 72 (got 100)`,
    `SVC_CONFIG: unknown setting 'prot' in ${file}; did you mean 'port'?`,
    `SVC_CONFIG: unknown setting 'maxQeue' in ${file}; did you mean 'maxQueue'?`,
    `SVC_CONFIG: unknown setting 'SVC_WORKERS' in ${file}; did you mean 'workers'?`,
    `SVC_CONFIG: unknown setting 'pool.maxQueue' in ${file}; the setting is now 'maxQueue' (SVC_MAX_QUEUE)`,
    /^SVC_CONFIG: unknown setting 'zzz' in .*; the keys are the environment variables' names without SVC_, camelCase: .*\bmodel, edgeModel, .*\bmaxQueue\b/,
  ]);
  t.equal(problems.length, 8);

  writeFileSync(file, '{ not json');
  t.match(
    problemsOf(() => loadConfig({ SVC_CONFIG: file, SVC_MODEL: flagship })),
    [/^SVC_CONFIG: .* is not valid JSON/],
  );
  writeFileSync(file, '[1, 2]');
  t.match(
    problemsOf(() => loadConfig({ SVC_CONFIG: file, SVC_MODEL: flagship })),
    [/^SVC_CONFIG: .* must hold a JSON object$/],
  );
  t.match(
    problemsOf(() => loadConfig({ SVC_CONFIG: join(dir, 'nope.json'), SVC_MODEL: flagship })),
    [/^SVC_CONFIG: cannot read .*nope\.json \(ENOENT\)$/],
  );
  t.throws(() => loadDataDir({ SVC_CONFIG: join(dir, 'nope.json') }), ConfigError);
});

t.test('defaultPublicBaseUrl', async (t) => {
  t.equal(defaultPublicBaseUrl('127.0.0.1', 8080), 'http://127.0.0.1:8080');
  t.equal(defaultPublicBaseUrl('0.0.0.0', 80), 'http://127.0.0.1:80');
  t.equal(defaultPublicBaseUrl('::', 8080), 'http://[::1]:8080');
  t.equal(defaultPublicBaseUrl('::1', 1), 'http://[::1]:1');
  t.equal(defaultPublicBaseUrl('stt.internal', 8080), 'http://stt.internal:8080');
});

t.test('connection limits (unread output): environment, config file, and bad values', async (t) => {
  const { dir, flagship } = models(t);
  const fromEnv = loadConfig({
    SVC_MODEL: flagship,
    SVC_MAX_PIPELINED_REQUESTS: '4',
    SVC_MAX_UNREAD_BYTES: '2048',
    SVC_UNREAD_TIMEOUT_MS: '5000',
    SVC_PUBLIC_MAX_PIPELINED_REQUESTS: '1',
    SVC_PUBLIC_MAX_UNREAD_BYTES: '0',
    SVC_PUBLIC_UNREAD_TIMEOUT_MS: '1000',
  });
  t.same(fromEnv.connections, {
    authenticated: { maxPipelinedRequests: 4, maxUnreadBytes: 2048, unreadTimeoutMs: 5000 },
    public: { maxPipelinedRequests: 1, maxUnreadBytes: 0, unreadTimeoutMs: 1000 },
  });
  const file = join(dir, 'limits.json');
  writeFileSync(file, JSON.stringify({ publicUnreadTimeoutMs: 2500 }));
  const fromFile = loadConfig({ SVC_CONFIG: file, SVC_MODEL: flagship });
  t.same(
    fromFile.connections,
    {
      authenticated: DEFAULTS.connections.authenticated,
      public: { ...DEFAULTS.connections.public, unreadTimeoutMs: 2500 },
    },
    'one setting from the file, the rest defaults',
  );
  t.match(
    problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_MAX_PIPELINED_REQUESTS: '0', SVC_PUBLIC_UNREAD_TIMEOUT_MS: '10' })),
    [/^SVC_MAX_PIPELINED_REQUESTS must be an integer from 1 /, /^SVC_PUBLIC_UNREAD_TIMEOUT_MS must be an integer from 100 /],
  );
});

t.test('the VAD model: the installed default, SVC_VAD_MODEL, a missing file refused unless SVC_VAD=false', async (t) => {
  const { flagship } = models(t);
  const missing = join(flagship, '..', 'no-vad-model.bin');
  t.same(
    loadConfig({ SVC_MODEL: flagship, SVC_VAD_MODEL: flagship }).vad,
    { enabled: true, model: flagship },
    'any existing file; its content is checked when the engine opens it',
  );
  const problems = problemsOf(() => loadConfig({ SVC_MODEL: flagship, SVC_VAD_MODEL: missing }));
  t.match(problems.join('\n'), /SVC_VAD_MODEL names a VAD model that does not exist/);
  t.same(loadConfig({ SVC_MODEL: flagship, SVC_VAD: 'false', SVC_VAD_MODEL: missing }).vad, { enabled: false, model: missing });
});

t.test('SVC_DATABASE_URL selects PostgreSQL; anything but a postgres:// URL is refused without echoing it', async (t) => {
  const { flagship } = models(t);
  const url = 'postgres://svc:pa55word@db.internal:5432/svc';
  t.same(loadConfig({ SVC_MODEL: flagship, SVC_DATABASE_URL: url }).database, { url });
  t.same(loadConfig({ SVC_MODEL: flagship, SVC_DATABASE_URL: 'postgresql://db/svc' }).database, { url: 'postgresql://db/svc' });
  for (const bad of ['mysql://root:hunter2@db/svc', 'not a url hunter2']) {
    t.throws(() => loadConfig({ SVC_MODEL: flagship, SVC_DATABASE_URL: bad }), {
      message: /SVC_DATABASE_URL must be a postgres:\/\/user:password@host:port\/database URL/,
    });
    try {
      loadConfig({ SVC_MODEL: flagship, SVC_DATABASE_URL: bad });
    } catch (error) {
      t.notOk((error as Error).message.includes('hunter2'), 'the value (it may hold a password) is not echoed');
    }
  }
});

t.test('SVC_S3_* select the S3 blob store; without a bucket they are refused; the secret is never echoed', async (t) => {
  const { flagship } = models(t);
  t.same(loadConfig({ SVC_MODEL: flagship }).storage, { s3: null }, 'local disk by default');
  const s3 = loadConfig({
    SVC_MODEL: flagship,
    SVC_S3_BUCKET: 'svc-audio',
    SVC_S3_ENDPOINT: 'http://minio:9000',
    SVC_S3_PUBLIC_ENDPOINT: 'https://s3.clinic.example',
    SVC_S3_ACCESS_KEY_ID: 'svc',
    SVC_S3_SECRET_ACCESS_KEY: 'hunter2 secret',
    SVC_S3_PREFIX: 'svc-stt/',
  }).storage.s3;
  t.same(s3, {
    bucket: 'svc-audio',
    region: 'us-east-1',
    endpoint: 'http://minio:9000',
    publicEndpoint: 'https://s3.clinic.example',
    forcePathStyle: true,
    credentials: { accessKeyId: 'svc', secretAccessKey: 'hunter2 secret' },
    prefix: 'svc-stt/',
    uploadEncryption: 'AES256',
  });
  t.match(
    loadConfig({ SVC_MODEL: flagship, SVC_S3_BUCKET: 'svc-audio' }).storage.s3,
    { region: 'us-east-1', forcePathStyle: false, prefix: '', uploadEncryption: 'AES256' },
    'AWS itself: virtual-host style, the default credential chain',
  );
  t.notOk('credentials' in loadConfig({ SVC_MODEL: flagship, SVC_S3_BUCKET: 'svc-audio' }).storage.s3!);

  const refused = (env: Record<string, string>) => problemsOf(() => loadConfig({ SVC_MODEL: flagship, ...env })).join('\n');
  t.match(refused({ SVC_S3_ENDPOINT: 'http://minio:9000' }), /SVC_S3_ENDPOINT has no effect without SVC_S3_BUCKET/);
  t.match(refused({ SVC_S3_BUCKET: 'Bad_Bucket' }), /SVC_S3_BUCKET: the S3 bucket name is 3 to 63 lowercase/);
  t.match(refused({ SVC_S3_BUCKET: 'svc-audio', SVC_S3_ENDPOINT: 'ftp://x' }), /the S3 endpoint is an http\(s\) URL/);
  t.match(refused({ SVC_S3_BUCKET: 'svc-audio', SVC_S3_PREFIX: '../x/' }), /the S3 key prefix/);
  t.equal(
    loadConfig({ SVC_MODEL: flagship, SVC_S3_BUCKET: 'svc-audio', SVC_S3_UPLOAD_ENCRYPTION: 'none' }).storage.s3?.uploadEncryption,
    null,
    'none: a server without SSE-S3',
  );
  t.match(refused({ SVC_S3_BUCKET: 'svc-audio', SVC_S3_UPLOAD_ENCRYPTION: 'aes' }), /SVC_S3_UPLOAD_ENCRYPTION must be AES256 or none/);
  t.match(refused({ SVC_S3_UPLOAD_ENCRYPTION: 'AES256' }), /SVC_S3_UPLOAD_ENCRYPTION has no effect without SVC_S3_BUCKET/);
  const onlySecret = refused({ SVC_S3_BUCKET: 'svc-audio', SVC_S3_SECRET_ACCESS_KEY: 'hunter2' });
  t.match(onlySecret, /SVC_S3_SECRET_ACCESS_KEY needs SVC_S3_ACCESS_KEY_ID too/);
  t.notOk(onlySecret.includes('hunter2'), 'the secret is not echoed');
});

t.test('role, metrics port and lifecycle settings', async (t) => {
  const { flagship } = models(t);
  const config = loadConfig({
    SVC_MODEL: flagship,
    SVC_ROLE: 'worker',
    SVC_METRICS_PORT: '9464',
    SVC_METRICS_TENANT_LABELS: '5',
    SVC_DRAIN_MS: '5000',
    SVC_INSTANCE_TTL_MS: '6000',
  });
  t.match(config, { role: 'worker', metricsPort: 9464, metricsTenantLabels: 5, lifecycle: { drainMs: 5000, instanceTtlMs: 6000 } });
  const refused = (env: Record<string, string>) => problemsOf(() => loadConfig({ SVC_MODEL: flagship, ...env })).join('\n');
  t.match(refused({ SVC_ROLE: 'scheduler' }), /SVC_ROLE must be one of api, worker, all/);
  t.match(refused({ SVC_METRICS_PORT: '8080' }), /SVC_METRICS_PORT must differ from the other ports/);
  t.match(refused({ SVC_METRICS_TENANT_LABELS: '-1' }), /SVC_METRICS_TENANT_LABELS must be an integer from 0/);
  t.match(refused({ SVC_INSTANCE_TTL_MS: '1000' }), /SVC_INSTANCE_TTL_MS must be an integer from 3000/);
});
