/**
 * The package runtime of the dev control plane. Crossplane core runs with
 * `--package-runtime=External`: it installs packages and creates their
 * revisions, and leaves running them to "an external controller". This is
 * that controller. For every active revision it sets what core's Deployment
 * runtime would set (REAL-CONTROL-PLANE.md):
 *
 * - FunctionRevision of one of ours: `status.endpoint` 127.0.0.1:<its port>
 *   (where `modelplane serve --tls-certs-dir` serves it), the TLS Secret, and
 *   `RuntimeHealthy=True`; a Function that is not ours: `RuntimeHealthy=False`
 *   with the reason (nothing here can run it);
 * - ProviderRevision: the TLS Secret and `RuntimeHealthy=True` (reason
 *   `Simulated` for the providers whose managed resources the dev runtime
 *   writes; `Running` for provider-kubernetes, once its health probe answers).
 *
 * Writes only when something differs (conditions compared without times).
 */
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import type { Kube, KindInformer } from '../kube.js';
import { type Condition, conditionsOf, hasConditions, mergeConditions } from './conditions.js';
import { ObjectQueue } from './queue.js';

/** The package label on a revision: the name of its Function/Provider. */
const PACKAGE_LABEL = 'pkg.crossplane.io/package';

/** Options of {@link PackageRuntime}. */
export interface PackageRuntimeOptions {
  /** Function name → port of our function servers. */
  functionPorts: ReadonlyMap<string, number>;
  /** The Secret (in core's namespace) with the functions' server certificate. */
  tlsSecretName: string;
  /** Provider name → a health check, for the providers that really run. */
  realProviders: ReadonlyMap<string, () => Promise<boolean>>;
  log: (line: string) => void;
}

/** Marks revisions healthy; see the module comment. */
export class PackageRuntime {
  private readonly informers: KindInformer[] = [];
  private readonly queue = new ObjectQueue((o) => this.reconcile(o));
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly kube: Kube,
    private readonly opts: PackageRuntimeOptions,
  ) {}

  async start(): Promise<void> {
    for (const kind of ['FunctionRevision', 'ProviderRevision']) {
      this.informers.push(await this.kube.informer('pkg.crossplane.io/v1', kind, (o) => this.queue.add(o), (o) => this.queue.forget(o)));
    }
    // Real providers become healthy when their probe answers, not on an event: look again every 2 s.
    this.timer = setInterval(() => {
      for (const inf of this.informers) for (const o of inf.list()) this.queue.add(o as KubeObject);
    }, 2000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const i of this.informers) await i.stop();
  }

  /** What this revision's status should say, or undefined for an inactive revision. */
  async desired(rev: KubeObject): Promise<{ fields: JsonObject; condition: Condition } | undefined> {
    const spec = (rev['spec'] ?? {}) as JsonObject;
    if (spec['desiredState'] !== 'Active') return undefined;
    const pkg = rev.metadata?.labels?.[PACKAGE_LABEL] ?? '';
    const fields: JsonObject = { tlsServerSecretName: this.opts.tlsSecretName };
    if (rev.kind === 'FunctionRevision') {
      const port = this.opts.functionPorts.get(pkg);
      if (port === undefined) {
        return {
          fields,
          condition: {
            type: 'RuntimeHealthy',
            status: 'False',
            reason: 'NoRuntime',
            message: `function ${pkg} is not one of Modelplane's: the dev control plane serves only functions/<folder>/`,
          },
        };
      }
      fields['endpoint'] = `127.0.0.1:${port}`;
      return { fields, condition: { type: 'RuntimeHealthy', status: 'True', reason: 'Running', message: `served by modelplane serve on 127.0.0.1:${port}` } };
    }
    const probe = this.opts.realProviders.get(pkg);
    if (!probe) {
      return {
        fields,
        condition: { type: 'RuntimeHealthy', status: 'True', reason: 'Simulated', message: 'managed resources are simulated by the Modelplane dev runtime' },
      };
    }
    const up = await probe().catch(() => false);
    return {
      fields,
      condition: up
        ? { type: 'RuntimeHealthy', status: 'True', reason: 'Running', message: 'running on the dev control plane' }
        : { type: 'RuntimeHealthy', status: 'False', reason: 'Starting', message: 'waiting for its health probe' },
    };
  }

  private async reconcile(rev: KubeObject): Promise<KubeObject | undefined> {
    try {
      const want = await this.desired(rev);
      if (!want) return undefined;
      const status = (rev['status'] ?? {}) as JsonObject;
      const fieldsMatch = Object.entries(want.fields).every(([k, v]) => status[k] === v);
      const current = conditionsOf(status);
      if (fieldsMatch && hasConditions(current, [want.condition])) return undefined;
      const conditions = mergeConditions(current, [want.condition], new Date().toISOString());
      // resourceVersion makes the patch fail rather than overwrite a condition core wrote meanwhile.
      const after = await this.kube.request<KubeObject>(
        'PATCH',
        `${await this.kube.objectPath(rev)}/status`,
        { metadata: { resourceVersion: rev.metadata?.resourceVersion }, status: { ...want.fields, conditions } },
        'application/merge-patch+json',
      );
      this.opts.log(`${rev.kind} ${rev.metadata?.name}: ${want.condition.type}=${want.condition.status} (${want.condition.reason})`);
      return after;
    } catch (err) {
      // A conflict or a revision deleted meanwhile: the next event or tick tries again.
      if (!/ 409 | 404 /.test(` ${(err as Error).message} `)) this.opts.log(`${rev.kind} ${rev.metadata?.name}: ${(err as Error).message}`);
      return undefined;
    }
  }
}
