/**
 * Metrics and traces of a replica's engines (docs/observability.md): the
 * PodMonitor's labels and its validity against prometheus-operator's CRD,
 * SGLang's metrics flag, and the cluster's OTLP endpoint as engine flags and env.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { engineRuntime } from '../../functions/lib/observability.js';
import { formatFieldError } from '../../functions/lib/schema/index.js';
import { inferenceCluster, replica, request, standalone } from '../builders/serving.js';
import { expectValidAgainstCrd, validateAgainstCrd } from '../helpers/crd.js';

const OTLP = 'http://otel-collector.monitoring:4317';

function clusterWith(otlpEndpoint?: string): KubeObject {
  const c = inferenceCluster('cluster-a');
  if (otlpEndpoint !== undefined) c['spec'] = { observability: { otlpEndpoint } };
  return c;
}

function labelled(xr: KubeObject, deployment: string): KubeObject {
  xr.metadata = { ...xr.metadata, labels: { 'modelplane.ai/deployment': deployment } };
  return xr;
}

function manifestOf(xr: KubeObject, key: string, otlp?: string): KubeObject {
  const result = compose(request(xr, { required: { cluster: [clusterWith(otlp)] } }));
  const resource = result.resources[key]?.resource;
  if (resource === undefined) throw new Error(`no ${key}: ${JSON.stringify(result.results)}`);
  return (resource['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest;
}

function engineOf(xr: KubeObject, otlp?: string): JsonObject {
  const d = manifestOf(xr, 'model-serving-main', otlp);
  return ((d['spec'] as JsonObject)['template'] as { spec: { containers: JsonObject[] } }).spec.containers[0]!;
}

describe('engineRuntime', () => {
  it.each([
    [{ image: 'vllm/vllm-openai:v0.9.2' }, 'vLLM'],
    [{ image: 'lmsysorg/sglang:v0.5.4' }, 'SGLang'],
    [{ image: 'registry.local/engine:1', command: ['python3', '-m', 'sglang.launch_server'] }, 'SGLang'],
    [{ image: 'registry.local/engine:1' }, 'vLLM'],
  ] as const)('%o is %s', (c, want) => {
    expect(engineRuntime(c)).toBe(want);
  });
});

describe('PodMonitor', () => {
  it('labels series with deployment (and its namespace), replica, cluster and engine, and validates against the CRD', () => {
    const pm = manifestOf(labelled(replica('qwen-7b-bf743'), 'qwen-7b'), 'pod-monitor');
    const relabelings = ((pm['spec'] as JsonObject)['podMetricsEndpoints'] as JsonObject[])[0]!['relabelings'] as JsonObject[];
    expect(relabelings.filter((r) => r['action'] === 'replace')).toStrictEqual([
      { action: 'replace', targetLabel: 'deployment', replacement: 'qwen-7b' },
      { action: 'replace', targetLabel: 'deployment_namespace', replacement: 'ml-team' },
      { action: 'replace', targetLabel: 'replica', replacement: 'qwen-7b-bf743' },
      { action: 'replace', targetLabel: 'cluster', replacement: 'cluster-a' },
      { action: 'replace', targetLabel: 'engine', replacement: 'main' },
    ]);
    expectValidAgainstCrd(pm);
  });

  it('the CRD rejects what prometheus-operator v0.82.2 does not know', () => {
    const pm = manifestOf(replica('r'), 'pod-monitor');
    const bad = structuredClone(pm);
    ((bad['spec'] as JsonObject)['podMetricsEndpoints'] as JsonObject[])[0]!['portNumber'] = 70000;
    expect(validateAgainstCrd(bad).errors.map(formatFieldError).join('\n')).toContain('spec.podMetricsEndpoints[0].portNumber');
  });
});

describe('engine flags and OTLP env', () => {
  it('vLLM without an endpoint: nothing added', () => {
    const c = engineOf(replica('r', { engines: [standalone('main', { args: ['--model=m'] })] }));
    expect(c['args']).toStrictEqual(['--model=m']);
    expect(c['env']).toBeUndefined();
  });

  it('vLLM with the cluster endpoint: --otlp-traces-endpoint and the OTEL env named after the deployment', () => {
    const xr = labelled(replica('r', { engines: [standalone('main', { args: ['--model=m'] })] }), 'qwen');
    const c = engineOf(xr, OTLP);
    expect(c['args']).toStrictEqual(['--model=m', '--otlp-traces-endpoint', OTLP]);
    expect(c['env']).toStrictEqual([
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: OTLP },
      { name: 'OTEL_SERVICE_NAME', value: 'qwen' },
    ]);
  });

  it('SGLang: --enable-metrics always; --enable-trace and the endpoint with one; user env wins', () => {
    const opts = {
      image: 'lmsysorg/sglang:v0.5.4',
      command: ['python3', '-m', 'sglang.launch_server'],
      args: ['--model-path=m'],
      env: [{ name: 'OTEL_SERVICE_NAME', value: 'mine' }],
    };
    expect(engineOf(replica('r', { engines: [standalone('main', opts)] }))['args']).toStrictEqual(['--model-path=m', '--enable-metrics']);
    const c = engineOf(replica('r', { engines: [standalone('main', opts)] }), OTLP);
    expect(c['args']).toStrictEqual(['--model-path=m', '--enable-metrics', '--enable-trace', '--otlp-traces-endpoint', OTLP]);
    expect(c['env']).toStrictEqual([
      { name: 'OTEL_SERVICE_NAME', value: 'mine' },
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: OTLP },
    ]);
  });

  it('a shell wrapper gets no flags, only the env (the replica name without a deployment label)', () => {
    const c = engineOf(replica('r', { engines: [standalone('main', { command: ['sh', '-c', 'vllm serve m'] })] }), OTLP);
    expect(c['args']).toStrictEqual([]);
    expect(c['env']).toStrictEqual([
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: OTLP },
      { name: 'OTEL_SERVICE_NAME', value: 'r' },
    ]);
  });
});
