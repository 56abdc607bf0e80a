/**
 * Deterministic names for composed objects.
 *
 * Guarantees: every name is a readable prefix plus a 5-hex-character SHA-256
 * hash, at most 63 characters (the Kubernetes DNS label limit, RFC 1123), with
 * the trailing `-` of a truncated prefix trimmed. The hash is always appended,
 * even to short names, so two different part lists never collide on their
 * readable prefix alone. Identity lives in labels; these names are never parsed
 * back.
 *
 * Both helpers reproduce the public Modelplane reference byte for byte
 * (docs/kinds/modeldeployment.md#names-and-hashes, docs/clouds.md#names) so an
 * installation can switch implementations without renaming running objects.
 * No lower-casing or character sanitising is done: callers pass DNS-safe parts.
 */
import { createHash } from 'node:crypto';

/** Maximum length of a Kubernetes object name that is also a DNS label. */
/** The label the fleet scheduler puts on each ModelReplica it composes, naming its ModelDeployment. */
export const DEPLOYMENT_LABEL = 'modelplane.ai/deployment';

export const MAX_NAME_LENGTH = 63;
/** Number of hex characters of SHA-256 appended to every name. */
export const HASH_LENGTH = 5;
const PREFIX_LENGTH = MAX_NAME_LENGTH - HASH_LENGTH - 1;

/** First {@link HASH_LENGTH} lowercase hex characters of SHA-256(text) over UTF-8. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_LENGTH);
}

function prefixOf(text: string): string {
  return text.slice(0, PREFIX_LENGTH).replace(/-+$/, '');
}

/**
 * `childName('test-cluster', 'kubeconfig')` → `test-cluster-kubeconfig-55b57`.
 *
 * The parts are joined with `-`; the result is the join truncated to 57
 * characters (trailing `-` stripped), `-`, and the short hash of the whole join.
 * Always at most 63 characters.
 */
export function childName(...parts: string[]): string {
  const full = parts.join('-');
  return `${prefixOf(full)}-${shortHash(full)}`;
}

/**
 * `opaqueName('my-model', 'cluster-a', '0')` → `my-model-5ab63`.
 *
 * Like {@link childName}, but only `visible` forms the readable prefix; the
 * discriminators change the hash only. Used for ModelReplica names, so a
 * replica's name shows its deployment and not its cluster.
 */
export function opaqueName(visible: string, ...discriminators: string[]): string {
  const full = [visible, ...discriminators].join('-');
  return `${prefixOf(visible)}-${shortHash(full)}`;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * True when `v` can be the `metadata.name` of an object the API server
 * admitted: a DNS-1123 subdomain of at most 253 characters (apimachinery
 * `validation.IsDNS1123Subdomain`, what most kinds, our XRs included,
 * require). Anything else read from a fetched object is garbage, not a name.
 */
export function isObjectName(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 253 && DNS1123_SUBDOMAIN.test(v);
}

/** Namespace of Modelplane's own objects on the control plane: the XRs an InferenceCluster composes, the gateway's objects. */
export const SYSTEM_NAMESPACE = 'modelplane-system';

/** Node label of a GPU pool's nodes; every engine pod is pinned by it (docs/kinds/modelreplica.md). */
export const POOL_LABEL = 'modelplane.ai/pool';

/** Name of the ClusterProviderConfig of InferenceCluster `ic`, which its ModelReplicas and ModelCaches target. */
export function providerConfigName(ic: string): string {
  return childName(ic, 'cluster-kubeconfig');
}

/** Label of a ModelService's priority-level TraefikService: the level's priority (docs/ai-gateway.md#overflow-and-failover; `modelplane plan` reads it). */
export const PRIORITY_LABEL = 'modelplane.ai/priority';
