/**
 * The Grafana dashboard ConfigMap of a ModelDeployment (docs/observability.md#dashboard):
 * its metadata, uid, panels and the exact queries per engine runtime, and
 * that it is the same bytes on every call.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { dashboard, dashboardConfigMap, dashboardUid } from '../../functions/schedule-model-deployment/dashboard.js';
import { type DeploymentSpec, readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { deployment, engine, member, request } from '../builders/scheduler.js';
import { repoRoot } from '../helpers/crd.js';

/** Grafana's dashboard schema (test/fixtures/grafana/README.md: source and adaptation). */
const validate = new Ajv({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(resolve(repoRoot, 'test/fixtures/grafana/dashboard.jsonschema.json'), 'utf8')) as object,
);

function spec(xr: KubeObject): DeploymentSpec {
  const r = readDeployment(xr);
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.deployment;
}

function sglang(): JsonObject {
  const m = member();
  m['template'] = { spec: { containers: [{ name: 'engine', image: 'lmsysorg/sglang:v0.5.4', command: ['python3', '-m', 'sglang.launch_server'] }] } };
  return m;
}

type Panel = { title: string; targets: { expr: string; legendFormat: string; refId: string }[]; fieldConfig: { defaults: { unit: string } } };

describe('dashboard', () => {
  it('a vLLM deployment: a ConfigMap <name>-dashboard for the Grafana sidecar, its uid from a hash of the name', () => {
    const cm = dashboardConfigMap(spec(deployment({ name: 'qwen', namespace: 'ml-team' })));
    expect(cm.metadata).toStrictEqual({ name: 'qwen-dashboard', namespace: 'ml-team', labels: { grafana_dashboard: '1' } });
    const json = JSON.parse((cm['data'] as Record<string, string>)['qwen.json']!) as JsonObject;
    expect(json['uid']).toBe(dashboardUid('ml-team', 'qwen'));
    expect(json['uid']).toMatch(/^mp-[0-9a-f]{20}$/);
    expect(json['title']).toBe('Modelplane ml-team/qwen');
    const panels = json['panels'] as Panel[];
    expect(panels.map((p) => [p.title, p.fieldConfig.defaults.unit, p.targets.map((t) => [t.refId, t.legendFormat, t.expr])])).toStrictEqual([
      ['Requests', 'reqps', [['A', 'requests/s', 'sum(rate(vllm:request_success_total{deployment="qwen",deployment_namespace="ml-team"}[5m]))']]],
      [
        'Time to first token',
        's',
        [
          ['A', 'p50', 'histogram_quantile(0.5, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{deployment="qwen",deployment_namespace="ml-team"}[5m])))'],
          ['B', 'p95', 'histogram_quantile(0.95, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{deployment="qwen",deployment_namespace="ml-team"}[5m])))'],
        ],
      ],
      [
        'Inter-token latency',
        's',
        [
          ['A', 'p50', 'histogram_quantile(0.5, sum by (le) (rate(vllm:inter_token_latency_seconds_bucket{deployment="qwen",deployment_namespace="ml-team"}[5m])))'],
          ['B', 'p95', 'histogram_quantile(0.95, sum by (le) (rate(vllm:inter_token_latency_seconds_bucket{deployment="qwen",deployment_namespace="ml-team"}[5m])))'],
        ],
      ],
      ['Waiting requests', 'short', [['A', '{{replica}}', 'sum by (replica) (vllm:num_requests_waiting{deployment="qwen",deployment_namespace="ml-team"})']]],
      ['KV-cache use', 'percentunit', [['A', '{{replica}}', 'max by (replica) (vllm:kv_cache_usage_perc{deployment="qwen",deployment_namespace="ml-team"})']]],
      ['GPU utilisation', 'percent', [['A', '{{exported_pod}}', 'avg by (exported_pod) (DCGM_FI_DEV_GPU_UTIL{exported_pod=~"qwen-[0-9a-f]{5}-.+"})']]],
    ]);
  });

  it('a deployment running vLLM and SGLang engines queries both, each legend prefixed by its runtime', () => {
    const d = spec(deployment({ name: 'mix', engines: [engine('a'), engine('b', [sglang()])] }));
    const panels = dashboard(d)['panels'] as Panel[];
    expect(panels[3]!.targets.map((t) => [t.legendFormat, t.expr])).toStrictEqual([
      ['SGLang {{replica}}', 'sum by (replica) (sglang:num_queue_reqs{deployment="mix",deployment_namespace="ml-team"})'],
      ['vLLM {{replica}}', 'sum by (replica) (vllm:num_requests_waiting{deployment="mix",deployment_namespace="ml-team"})'],
    ]);
    expect(panels[0]!.targets.map((t) => t.expr)).toStrictEqual([
      'sum(rate(sglang:num_requests_total{deployment="mix",deployment_namespace="ml-team"}[5m]))',
      'sum(rate(vllm:request_success_total{deployment="mix",deployment_namespace="ml-team"}[5m]))',
    ]);
    expect(panels[4]!.targets.map((t) => t.expr)[0]).toBe('max by (replica) (sglang:token_usage{deployment="mix",deployment_namespace="ml-team"})');
  });

  it('is the same bytes on every call, and differs by namespace only in uid, tags and title', () => {
    const a = dashboardConfigMap(spec(deployment({ name: 'qwen', namespace: 'a' })));
    expect(JSON.stringify(dashboardConfigMap(spec(deployment({ name: 'qwen', namespace: 'a' }))))).toBe(JSON.stringify(a));
    expect(dashboardUid('a', 'qwen')).not.toBe(dashboardUid('b', 'qwen'));
  });

  it.each([
    ['vLLM', deployment({ name: 'qwen' })],
    ['vLLM and SGLang', deployment({ name: 'mix', engines: [engine('a'), engine('b', [sglang()])] })],
  ])('%s: valid against Grafana\'s dashboard JSON schema', (_n, xr) => {
    const json = JSON.parse(Object.values(dashboardConfigMap(spec(xr))['data'] as Record<string, string>)[0]!) as unknown;
    validate(json);
    expect(validate.errors ?? []).toStrictEqual([]);
  });

  it('the schema rejects what Grafana does not know (a panel wider than the grid)', () => {
    const json = dashboard(spec(deployment({ name: 'qwen' })));
    ((json['panels'] as JsonObject[])[0]!['gridPos'] as JsonObject)['w'] = 25;
    expect(validate(json)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/panels/0/gridPos/w');
  });

  it('is composed, marked ready, even at replicas 0', () => {
    const out = compose(request(deployment({ name: 'qwen', replicas: 0 })));
    expect(Object.keys(out.resources)).toStrictEqual(['dashboard']);
    expect(out.resources['dashboard']!.ready).toBe(true);
    expect(out.resources['dashboard']!.resource.metadata?.name).toBe('qwen-dashboard');
  });
});
