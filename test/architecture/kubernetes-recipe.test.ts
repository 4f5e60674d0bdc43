// The Kubernetes recipe (deploy/kubernetes/), checked without a cluster (none runs here): every object
// validates against the Kubernetes API's JSON schemas (kubernetes-models), and every reference in it
// is to something real: the settings are ones svc-stt reads and they load, each secretKeyRef names a
// key of the documented Secret, the ports and probes are the service's own (and a started service
// answers them), the grace period covers the drain, and the autoscaler's metric is one /metrics
// exports, served by the adapter rule written beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';

import { loadConfig, SETTING_ENVIRONMENT_NAMES } from '../../src/config/load-config.js';
import { SERVICE_ROLES } from '../../src/config/service-config.js';
import { exportedSeriesNames } from '../helpers/exported-metrics.js';
import { testModelPath } from '../helpers/test-models.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = 'deploy/kubernetes';
const read = (file: string) => readFileSync(`${ROOT}/${file}`, 'utf8');

// A loose view of the objects: the schemas have already vouched for their shape.
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}
interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args: string[];
  ports: Array<{ name: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}

function manifestsIn(folder: string): Array<{ file: string; object: Manifest }> {
  return readdirSync(`${ROOT}/${folder}`)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) =>
      parseAllDocuments(read(`${folder}/${name}`)).map((document) => {
        if (document.errors.length > 0) throw new Error(`${folder}/${name}: ${document.errors[0].message}`);
        return { file: `${folder}/${name}`, object: document.toJS() as Manifest };
      }),
    );
}

const applied = manifestsIn(DIR);
const exampleSecret = manifestsIn(`${DIR}/example-secret`);
const all = [...applied, ...exampleSecret];
const find = (kind: string, name: string) => {
  const found = all.find(({ object }) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${DIR}`);
  return found.object;
};

t.test('every object validates against the Kubernetes JSON schemas', async (t) => {
  t.same(
    applied.map(({ object }) => `${object.kind}/${object.metadata.name}`).sort(),
    [
      'ConfigMap/svc-stt-prometheus-adapter',
      'ConfigMap/svc-stt-settings',
      'Deployment/svc-stt-api',
      'Deployment/svc-stt-worker',
      'HorizontalPodAutoscaler/svc-stt-worker',
      'PodDisruptionBudget/svc-stt-api',
      'PodDisruptionBudget/svc-stt-worker',
      'Service/svc-stt-api',
    ],
    'what `kubectl apply -f deploy/kubernetes/` creates',
  );
  t.same(
    exampleSecret.map(({ object }) => `${object.kind}/${object.metadata.name}`),
    ['Secret/svc-stt-secrets'],
    'the example Secret, in a folder kubectl apply -f does not descend into',
  );
  for (const { file, object } of all) {
    // kubernetes-models/<group>/<version> (the core group: kubernetes-models/v1) has one class per kind.
    const models = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<string, new (data: unknown) => { validate(): void }>;
    const Model = models[object.kind];
    t.ok(Model, `${file}: ${object.apiVersion} ${object.kind} is a kind of the Kubernetes API`);
    if (!Model) continue;
    t.doesNotThrow(() => new Model(object).validate(), `${file}: ${object.kind}/${object.metadata.name} is valid`);
  }
  // The validator is not a formality: a wrong type and a missing required field are refused.
  const { Deployment } = await import('kubernetes-models/apps/v1');
  const api = find('Deployment', 'svc-stt-api');
  t.throws(() => new Deployment({ ...api, spec: { ...api.spec, replicas: '2' } }).validate(), 'a string replica count is refused');
  t.throws(() => new Deployment({ ...api, spec: { ...api.spec, selector: undefined } }).validate(), 'a Deployment without a selector is refused');
});

t.test('the api and worker Deployments: real settings, secrets, ports, probes, drain, GPU and security', async (t) => {
  const { names: exported, healthz, readyz } = await exportedSeriesNames();
  t.equal(healthz, 200, 'a started service answers the liveness path');
  t.equal(readyz, 200, 'and the readiness path');
  const secret = find('Secret', 'svc-stt-secrets');
  const secretKeys = Object.keys(secret.stringData as Record<string, string>);
  const documented = read('deploy/README.md');
  const version = (JSON.parse(read('package.json')) as { version: string }).version;
  const model = await testModelPath('micro');

  for (const role of ['api', 'worker'] as const) {
    const deployment = find('Deployment', `svc-stt-${role}`);
    const pod = deployment.spec.template;
    t.same(deployment.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'svc-stt', 'app.kubernetes.io/component': role });
    t.match(pod.metadata.labels, deployment.spec.selector.matchLabels, `${role}: the pods carry the selector's labels`);
    const [container, ...others] = pod.spec.containers as Container[];
    t.equal(others.length, 0, `${role}: one container`);
    t.equal(container.image, `registry.example.com/svc-stt:${version}`, `${role}: the image the Dockerfile builds, at this version`);
    t.same(container.args, ['serve', '--role', role], `${role}: runs its role`);
    t.ok((SERVICE_ROLES as readonly string[]).includes(role));

    // Settings: the shared ConfigMap and the Secret's keys, every name one svc-stt reads.
    const settings: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      t.ok(source.configMapRef, `${role}: envFrom only from ConfigMaps`);
      Object.assign(settings, find('ConfigMap', source.configMapRef!.name).data as Record<string, string>);
    }
    const fromSecret: Record<string, string> = {};
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      t.ok(ref, `${role}: ${variable.name} comes from a Secret (the rest are in the ConfigMap)`);
      if (!ref) continue;
      t.equal(ref.name, 'svc-stt-secrets', `${role}: ${variable.name} from the documented Secret`);
      t.ok(secretKeys.includes(ref.key), `${role}: ${variable.name}: the Secret has the key ${ref.key}`);
      fromSecret[variable.name] = ref.key;
    }
    for (const name of [...Object.keys(settings), ...Object.keys(fromSecret)]) {
      t.ok(SETTING_ENVIRONMENT_NAMES.includes(name), `${role}: ${name} is a setting svc-stt reads`);
    }
    t.same(Object.keys(fromSecret).sort(), ['SVC_DATABASE_URL', 'SVC_S3_ACCESS_KEY_ID', 'SVC_S3_SECRET_ACCESS_KEY', 'SVC_WEBHOOK_MASTER_KEY']);
    t.notOk(
      Object.keys(settings).some((name) => name in fromSecret),
      `${role}: no secret setting also in the ConfigMap`,
    );
    // What the Secret's keys hold, as a filled-in Secret would: the settings load for this role.
    const secretValues: Record<string, string> = {
      'database-url': 'postgres://svc:pw@postgres:5432/svc',
      's3-access-key-id': 'svc-stt',
      's3-secret-access-key': 's3-secret',
      'webhook-master-key': Buffer.alloc(32, 7).toString('base64'),
    };
    const environment = { ...settings, ...Object.fromEntries(Object.entries(fromSecret).map(([name, key]) => [name, secretValues[key]])) };
    // The model and the data folder: this machine's (the pod's paths are checked against its mounts below).
    const config = loadConfig({ ...environment, SVC_MODEL: model, SVC_DATA_DIR: t.testdir(), SVC_ROLE: role });
    t.match(config, { role, database: { url: secretValues['database-url'] }, storage: { s3: { bucket: 'svc-stt', credentials: { accessKeyId: 'svc-stt' } } } });
    t.ok(config.metricsPort, 'metrics on a listener of their own, off the Service');

    // Ports: named as the service listens; the worker runs no realtime or console listener.
    const ports = Object.fromEntries(container.ports.map((port) => [port.name, port.containerPort]));
    t.same(
      ports,
      role === 'api'
        ? { http: config.port, realtime: config.realtimePort, console: config.consolePort, metrics: config.metricsPort }
        : { http: config.port, metrics: config.metricsPort },
      `${role}: container ports are SVC_PORT, SVC_REALTIME_PORT, SVC_CONSOLE_PORT and SVC_METRICS_PORT`,
    );
    const portOf = (port: string | number) => (typeof port === 'number' ? port : ports[port]);
    for (const probe of ['startupProbe', 'livenessProbe'] as const) {
      t.same([container[probe].httpGet.path, portOf(container[probe].httpGet.port)], ['/healthz', config.port], `${role}: ${probe} on /healthz`);
    }
    t.same([container.readinessProbe.httpGet.path, portOf(container.readinessProbe.httpGet.port)], ['/readyz', config.port], `${role}: readiness on /readyz`);
    const annotations = pod.metadata.annotations as Record<string, string>;
    t.same(
      [annotations['prometheus.io/path'], Number(annotations['prometheus.io/port'])],
      ['/metrics', config.metricsPort],
      `${role}: Prometheus scrapes SVC_METRICS_PORT`,
    );

    // Drain: the kubelet waits for the preStop pause, SVC_DRAIN_MS and a webhook attempt before SIGKILL.
    const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
    t.equal(preStop[0], 'sleep');
    const needMs = Number(preStop[1]) * 1000 + config.lifecycle.drainMs + config.webhooks.attemptTimeoutMs;
    t.ok(pod.spec.terminationGracePeriodSeconds * 1000 >= needMs + 10_000, `${role}: the grace period covers the drain (${needMs} ms) with a margin`);

    // Security: the image's non-root user; the root filesystem read-only, the service writing only to
    // its emptyDir data folder and /tmp; the model volume read-only.
    t.match(pod.spec.securityContext, { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
    t.match(read('Dockerfile'), /^USER node$/m, "the image's user: node, uid 1000 in the Node image");
    t.match(container.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    t.equal(pod.spec.automountServiceAccountToken, false);
    const volumes = pod.spec.volumes as Array<{ name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }>;
    const mountOf = (path: string) =>
      container.volumeMounts
        .filter((mount) => path === mount.mountPath || path.startsWith(`${mount.mountPath}/`))
        .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
    for (const [what, path] of [
      ['SVC_DATA_DIR', environment.SVC_DATA_DIR],
      ['the temporary folder', '/tmp'],
    ]) {
      const mount = mountOf(path);
      t.ok(mount && !mount.readOnly && volumes.find((volume) => volume.name === mount.name)?.emptyDir, `${role}: ${what} (${path}) is on a writable emptyDir`);
    }
    const models = mountOf(environment.SVC_MODEL);
    t.ok(models?.readOnly, `${role}: SVC_MODEL (${environment.SVC_MODEL}) is on the read-only model volume`);
    const claim = volumes.find((volume) => volume.name === models?.name)?.persistentVolumeClaim;
    t.ok(claim && documented.includes(claim.claimName), `${role}: the model volume's claim (${claim?.claimName}) is documented in deploy/README.md`);

    t.ok(container.resources.requests?.cpu && container.resources.requests.memory, `${role}: requests CPU and memory`);
    if (role === 'worker') {
      t.equal(container.resources.limits?.['nvidia.com/gpu'], '1', 'a worker has a GPU');
      t.ok(
        Object.keys(pod.spec.nodeSelector as Record<string, string>).some((label) => label.startsWith('nvidia.com/gpu')),
        'on GPU nodes',
      );
      t.match(pod.spec.tolerations, [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }], 'tolerating their taint');
    }

    const budget = find('PodDisruptionBudget', `svc-stt-${role}`);
    t.same(budget.spec.selector.matchLabels, deployment.spec.selector.matchLabels, `${role}: the disruption budget covers its pods`);
  }

  // The API's Service: the HTTP, realtime and console ports, never the metrics one.
  const service = find('Service', 'svc-stt-api');
  const api = find('Deployment', 'svc-stt-api');
  t.same(service.spec.selector, api.spec.selector.matchLabels);
  t.same(
    (service.spec.ports as Array<{ name: string; targetPort: string }>).map((port) => [port.name, port.targetPort]),
    [
      ['http', 'http'],
      ['realtime', 'realtime'],
      ['console', 'console'],
    ],
  );

  // The autoscaler: on the worker Deployment, on a metric /metrics really exports, served by the adapter rule.
  const hpa = find('HorizontalPodAutoscaler', 'svc-stt-worker');
  t.same(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'svc-stt-worker' });
  t.ok(hpa.spec.minReplicas >= 1 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
  const metrics = hpa.spec.metrics as Array<{ type: string; external?: { metric: { name: string } } }>;
  t.equal(metrics.length, 1);
  const metric = metrics[0].external!.metric.name;
  t.equal(metric, 'svc_stt_job_queue_depth', 'the queue of claimable jobs');
  t.ok(exported.has(metric), `${metric} is exported by /metrics`);
  const adapter = parse(find('ConfigMap', 'svc-stt-prometheus-adapter').data['config.yaml'] as string) as {
    externalRules: Array<{ seriesQuery: string; name: { as: string }; metricsQuery: string }>;
  };
  const rule = adapter.externalRules.find((candidate) => candidate.name.as === metric);
  t.ok(rule, 'the adapter rule serves the External metric the autoscaler names');
  t.match(rule?.seriesQuery, new RegExp(`^${metric}\\{`), 'from the series of that name');
  t.match(rule?.metricsQuery, /^max\(/, 'every process reports the one shared queue: its max, not its sum');
});
