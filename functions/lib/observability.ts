/**
 * What the replica and scheduler functions share about observability
 * (docs/observability.md): which engine runtime a container runs, the labels
 * every scraped series carries, and the metric names each runtime exports.
 *
 * Guarantees:
 * - {@link engineRuntime} never throws; a container that is not recognisably
 *   SGLang is vLLM (the images every example and seed runs).
 * - Metric names are the ones the engines export (vLLM's `vllm:` metrics at
 *   `/metrics` on its HTTP port; SGLang's `sglang:` metrics at `/metrics` with
 *   `--enable-metrics`), listed with their sources in docs/observability.md.
 */

/** An engine runtime whose metrics and trace flags we know. */
export type EngineRuntime = 'vLLM' | 'SGLang';

/** The container fields that tell the runtime apart. */
export interface RuntimeHint {
  image: string;
  command?: readonly string[] | undefined;
}

/** SGLang when the image or the command names it (`lmsysorg/sglang`, `python3 -m sglang.launch_server`), else vLLM. */
export function engineRuntime(c: RuntimeHint): EngineRuntime {
  const words = [c.image, ...(c.command ?? [])];
  return words.some((w) => /sglang/i.test(w)) ? 'SGLang' : 'vLLM';
}

/**
 * Target labels every engine series carries (the PodMonitor's relabelings).
 * `deployment_namespace` is the ModelDeployment's namespace: every replica's
 * pods run in one namespace of the workload cluster, so the pods' own
 * `namespace` label cannot tell two teams' same-named deployments apart.
 */
export const METRIC_LABEL = {
  deployment: 'deployment',
  deploymentNamespace: 'deployment_namespace',
  replica: 'replica',
  cluster: 'cluster',
  engine: 'engine',
} as const;

/** The metrics a dashboard panel reads, per runtime. */
export interface RuntimeMetrics {
  /** Counter of finished requests. */
  requests: string;
  /** Histogram (`_bucket`) of time to first token, seconds. */
  ttftBucket: string;
  /** Histogram (`_bucket`) of inter-token latency, seconds. */
  itlBucket: string;
  /** Gauge of waiting (queued) requests. */
  waiting: string;
  /** Gauge of requests being processed (in a batch). */
  running: string;
  /** Gauge of KV-cache use, 0..1. */
  kvCache: string;
}

/** Metric names by runtime (docs/observability.md#metric-names). */
export const RUNTIME_METRICS: Readonly<Record<EngineRuntime, RuntimeMetrics>> = {
  vLLM: {
    requests: 'vllm:request_success_total',
    ttftBucket: 'vllm:time_to_first_token_seconds_bucket',
    itlBucket: 'vllm:inter_token_latency_seconds_bucket',
    waiting: 'vllm:num_requests_waiting',
    running: 'vllm:num_requests_running',
    kvCache: 'vllm:kv_cache_usage_perc',
  },
  SGLang: {
    requests: 'sglang:num_requests_total',
    ttftBucket: 'sglang:time_to_first_token_seconds_bucket',
    itlBucket: 'sglang:inter_token_latency_seconds_bucket',
    waiting: 'sglang:num_queue_reqs',
    running: 'sglang:num_running_reqs',
    kvCache: 'sglang:token_usage',
  },
};

/** DCGM exporter's GPU utilisation gauge (percent). */
export const DCGM_GPU_UTIL = 'DCGM_FI_DEV_GPU_UTIL';
