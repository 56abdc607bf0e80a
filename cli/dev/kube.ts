/**
 * A small Kubernetes API client for the dev control plane: raw REST calls
 * authenticated from a kubeconfig by `@kubernetes/client-node`, kind → REST
 * path through discovery (cached), status-subresource and merge patches,
 * server-side apply, and informers (`makeInformer`, restarted after errors).
 *
 * Errors: every non-2xx answer rejects with {@link KubeError}, whose message
 * is `<METHOD> <path>: <status> <API server message>`; 404 is tested with
 * {@link isNotFound}.
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { type Informer, KubeConfig, type KubernetesObject, makeInformer, type ObjectCache } from '@kubernetes/client-node';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';

/** An API server's error answer. */
export class KubeError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // not JSON: keep the text
    }
    super(`${method} ${path}: ${status} ${message}`);
  }
}

/** True for a 404 from the API server. */
export function isNotFound(err: unknown): boolean {
  return err instanceof KubeError && err.status === 404;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // /readyz and friends answer plain text
  }
}

/** How a kind is served. */
export interface ResourceInfo {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  plural: string;
  namespaced: boolean;
}

/** Objects of one kind, kept current by a watch. */
export type KindInformer = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

/** A client for one API server. */
export class Kube {
  private readonly discovery = new Map<string, Promise<Map<string, ResourceInfo>>>();

  private constructor(
    readonly config: KubeConfig,
    private readonly server: URL,
  ) {}

  /** @throws Error when the kubeconfig cannot be read or has no current cluster. */
  static fromFile(path: string): Kube {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return Kube.of(kc, path);
  }

  /** From kubeconfig text (a kubeconfig Secret's value). @throws Error when it has no current cluster. */
  static fromString(text: string, what = 'kubeconfig'): Kube {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    return Kube.of(kc, what);
  }

  private static of(kc: KubeConfig, what: string): Kube {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`${what}: no current cluster`);
    return new Kube(kc, new URL(cluster.server));
  }

  /** The API server URL. */
  get serverUrl(): string {
    return this.server.toString();
  }

  /** One REST call; resolves with the parsed JSON body (or undefined for an empty one). */
  async request<T = JsonObject>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const opts: RequestOptions = {
      method,
      host: this.server.hostname,
      port: this.server.port || 443,
      path,
      headers: { Accept: 'application/json' },
    };
    await this.config.applyToHTTPSOptions(opts);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (payload !== undefined) opts.headers = { ...opts.headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
    return new Promise<T>((resolve, reject) => {
      const req = httpsRequest(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) reject(new KubeError(method, path, status, text));
          else resolve(parseBody(text) as T);
        });
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  private resources(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    let p = this.discovery.get(apiVersion);
    if (!p) {
      const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      p = this.request<{ resources: { name: string; kind: string; namespaced: boolean }[] }>('GET', base).then((list) => {
        const out = new Map<string, ResourceInfo>();
        for (const r of list.resources) if (!r.name.includes('/')) out.set(r.kind, { base, plural: r.name, namespaced: r.namespaced });
        return out;
      });
      // A kind not served yet (its CRD is still being established) is looked up again next time.
      p.catch(() => this.discovery.delete(apiVersion));
      this.discovery.set(apiVersion, p);
    }
    return p;
  }

  /**
   * How `apiVersion`/`kind` is served.
   * @throws KubeError 404 when the API server does not serve it (yet).
   */
  async info(apiVersion: string, kind: string): Promise<ResourceInfo> {
    let info = (await this.resources(apiVersion)).get(kind);
    if (!info) {
      this.discovery.delete(apiVersion);
      info = (await this.resources(apiVersion)).get(kind);
    }
    if (!info) throw new KubeError('GET', `/apis/${apiVersion}`, 404, `kind ${kind} is not served`);
    return info;
  }

  /** The collection path of a kind (in `namespace` when namespaced and given). */
  async collectionPath(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    const i = await this.info(apiVersion, kind);
    return i.namespaced && namespace ? `${i.base}/namespaces/${namespace}/${i.plural}` : `${i.base}/${i.plural}`;
  }

  /** The path of one object. */
  async objectPath(obj: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<string> {
    const i = await this.info(obj.apiVersion, obj.kind);
    const ns = i.namespaced ? `/namespaces/${obj.metadata?.namespace ?? 'default'}` : '';
    return `${i.base}${ns}/${i.plural}/${obj.metadata?.name ?? ''}`;
  }

  /** Reads one object, or undefined when it does not exist. */
  async get(apiVersion: string, kind: string, name: string, namespace?: string): Promise<KubeObject | undefined> {
    try {
      return await this.request<KubeObject>('GET', await this.objectPath({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } }));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Lists a kind (all namespaces unless `namespace`). */
  async list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]> {
    const list = await this.request<{ items: KubeObject[] }>('GET', await this.collectionPath(apiVersion, kind, namespace));
    return list.items.map((o) => ({ ...o, apiVersion, kind }));
  }

  /** Merge-patches the status subresource. */
  async patchStatus(obj: KubeObject, status: JsonObject): Promise<KubeObject> {
    return this.request('PATCH', `${await this.objectPath(obj)}/status`, { status }, 'application/merge-patch+json');
  }

  /** Merge-patches the object. */
  async mergePatch(obj: KubeObject, patch: JsonObject): Promise<KubeObject> {
    return this.request('PATCH', await this.objectPath(obj), patch, 'application/merge-patch+json');
  }

  /** Server-side apply (`force` takes over fields other managers own). */
  async apply(obj: KubeObject, fieldManager: string, force = true): Promise<KubeObject> {
    const path = `${await this.objectPath(obj)}?fieldManager=${encodeURIComponent(fieldManager)}${force ? '&force=true' : ''}`;
    return this.request('PATCH', path, obj, 'application/apply-patch+yaml');
  }

  /** Creates an object; resolves with undefined when it exists already. */
  async createIfAbsent(obj: KubeObject): Promise<KubeObject | undefined> {
    try {
      return await this.request<KubeObject>('POST', await this.collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace), obj);
    } catch (err) {
      if (err instanceof KubeError && err.status === 409) return undefined;
      throw err;
    }
  }

  /** Deletes an object (absent is fine). */
  async delete(obj: KubeObject, propagationPolicy: 'Foreground' | 'Background' = 'Background'): Promise<void> {
    try {
      await this.request('DELETE', await this.objectPath(obj), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * An informer over every object of a kind (all namespaces), restarted 2 s
   * after any error (a watch that dropped, a kind not served yet). `onChange`
   * gets each added or updated object, `onDelete` each deleted one.
   */
  async informer(
    apiVersion: string,
    kind: string,
    onChange: (obj: KubeObject) => void,
    onDelete: (obj: KubeObject) => void = () => {},
  ): Promise<KindInformer> {
    const path = await this.collectionPath(apiVersion, kind);
    const stamp = (o: KubernetesObject) => ({ ...(o as KubeObject), apiVersion, kind }) as KubeObject;
    const inf = makeInformer(this.config, path, async () => {
      const list = await this.request<{ items: KubernetesObject[]; metadata: { resourceVersion?: string } }>('GET', path);
      return { ...list, items: list.items.map(stamp) } as never;
    });
    let stopped = false;
    inf.on('add', (o) => onChange(stamp(o)));
    inf.on('update', (o) => onChange(stamp(o)));
    inf.on('delete', (o) => onDelete(stamp(o)));
    inf.on('error', () => {
      if (!stopped) setTimeout(() => void inf.start().catch(() => {}), 2000);
    });
    const stop = inf.stop.bind(inf);
    inf.stop = async () => {
      stopped = true;
      await stop();
    };
    await inf.start();
    return inf;
  }
}
