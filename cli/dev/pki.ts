/**
 * The certificates of the dev control plane: one CA, and a leaf per
 * component, all ECDSA P-256 (PEM; private keys PKCS#8), valid one year.
 *
 * Built on `@peculiar/x509` over Node's WebCrypto. Everything is written
 * once into `<dir>/` and reused while it exists, so restarting a control
 * plane keeps its kubeconfigs valid.
 *
 * Who uses what (the servers' names are IP SANs 127.0.0.1, because every
 * client dials 127.0.0.1, and gRPC checks the endpoint host,
 * docs/composition.md#transport-and-flags):
 * - `apiserver`, `workload-apiserver`: kube-apiserver serving certificates;
 * - `admin` (`O=system:masters`): kubectl, Crossplane core, provider-kubernetes,
 *   our runtime; `kcm`: the controller manager (`CN=system:kube-controller-manager`,
 *   a user Kubernetes' bootstrap RBAC knows);
 * - `functions`: our function servers (mTLS; Crossplane's client certificate is `core`);
 * - `registry`: the OCI registry; `webhook`: provider-kubernetes' webhook server;
 * - `sa.key`/`sa.pub`: the service-account token signing key pair.
 */
import { webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One leaf certificate to issue. */
export interface LeafSpec {
  /** File stem: `<name>.crt`, `<name>.key`. */
  name: string;
  /** Subject common name. */
  cn: string;
  /** Subject organisation (Kubernetes reads it as the user's group). */
  org?: string;
  /** IP SANs. */
  ips?: string[];
  /** DNS SANs. */
  dns?: string[];
}

/** Paths of a certificate and its key. */
export interface CertFiles {
  crt: string;
  key: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function importPrivateKey(pemText: string): Promise<CryptoKey> {
  const der = Buffer.from(pemText.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return (await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign'])) as CryptoKey;
}

/**
 * A CA under `dir` and the leaves it signs. Files are created on first use
 * and reused afterwards (a leaf is re-issued only when its files are missing).
 */
export class Pki {
  readonly caCrt: string;
  private readonly caKey: string;
  private ca?: { cert: x509.X509Certificate; key: CryptoKey };

  constructor(readonly dir: string) {
    this.caCrt = join(dir, 'ca.crt');
    this.caKey = join(dir, 'ca.key');
  }

  private async authority(): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
    if (this.ca) return this.ca;
    mkdirSync(this.dir, { recursive: true });
    if (existsSync(this.caCrt) && existsSync(this.caKey)) {
      this.ca = { cert: new x509.X509Certificate(readFileSync(this.caCrt, 'utf8')), key: await importPrivateKey(readFileSync(this.caKey, 'utf8')) };
      return this.ca;
    }
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=modelplane-dev-ca',
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 365 * DAY_MS),
      keys,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    writeFileSync(this.caKey, pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), { mode: 0o600 });
    writeFileSync(this.caCrt, `${cert.toString('pem')}\n`);
    this.ca = { cert, key: keys.privateKey };
    return this.ca;
  }

  /** Issues (or reuses) one leaf: usable for both server and client authentication. */
  async leaf(spec: LeafSpec): Promise<CertFiles> {
    const files = { crt: join(this.dir, `${spec.name}.crt`), key: join(this.dir, `${spec.name}.key`) };
    if (existsSync(files.crt) && existsSync(files.key)) return files;
    const ca = await this.authority();
    const keys = await generateKeys();
    const names: x509.JsonGeneralName[] = [
      ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
      ...(spec.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ];
    const dn = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1');
    const cert = await x509.X509CertificateGenerator.create({
      subject: `CN=${dn(spec.cn)}${spec.org ? `, O=${dn(spec.org)}` : ''}`,
      issuer: ca.cert.subject,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 365 * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: ca.key,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      ],
    });
    writeFileSync(files.key, pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), { mode: 0o600 });
    writeFileSync(files.crt, `${cert.toString('pem')}\n`);
    return files;
  }

  /** The service-account signing key pair (`sa.key` PKCS#8, `sa.pub` SPKI). */
  async serviceAccountKeys(): Promise<{ key: string; pub: string }> {
    const out = { key: join(this.dir, 'sa.key'), pub: join(this.dir, 'sa.pub') };
    if (existsSync(out.key) && existsSync(out.pub)) return out;
    mkdirSync(this.dir, { recursive: true });
    const keys = await generateKeys();
    writeFileSync(out.key, pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), { mode: 0o600 });
    writeFileSync(out.pub, pem('PUBLIC KEY', await webcrypto.subtle.exportKey('spki', keys.publicKey)));
    return out;
  }
}

/**
 * A kubeconfig for one API server and one client certificate.
 * @param embed true: certificate data inline (for a kubeconfig stored in a Secret); false: file paths.
 */
export function kubeconfig(opts: { name: string; server: string; ca: string; cert: CertFiles; embed: boolean }): string {
  const b64 = (f: string) => Buffer.from(readFileSync(f)).toString('base64');
  const cluster = opts.embed
    ? { server: opts.server, 'certificate-authority-data': b64(opts.ca) }
    : { server: opts.server, 'certificate-authority': opts.ca };
  const user = opts.embed
    ? { 'client-certificate-data': b64(opts.cert.crt), 'client-key-data': b64(opts.cert.key) }
    : { 'client-certificate': opts.cert.crt, 'client-key': opts.cert.key };
  return `${JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: opts.name, cluster }],
      users: [{ name: opts.name, user }],
      contexts: [{ name: opts.name, context: { cluster: opts.name, user: opts.name } }],
      'current-context': opts.name,
    },
    null,
    2,
  )}\n`;
}
