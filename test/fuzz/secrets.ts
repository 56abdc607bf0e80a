/**
 * Secret values planted in every fuzzed request, so the fuzzer can prove no
 * response carries one: a step credential, the connection details of every
 * observed composed resource and of the XR, and a Secret among the required
 * resources (both `data`, base64, and `stringData`).
 *
 * Guarantees: {@link withSecrets} copies the request; {@link leakedSecrets}
 * finds a planted value whether it appears raw or base64-encoded (bytes
 * fields are base64 in a response's JSON form).
 */
import type { RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';

/** The planted values; distinctive enough never to occur by chance. */
export const SECRET_VALUES = [
  'fuzz-credential-7f3a9c41',
  'fuzz-connection-91c2d7e0',
  'fuzz-secret-data-44be03fa',
  'fuzz-secret-string-d0e15b96',
] as const;

/** Requirement name of the planted Secret (no function asks for it; it must not matter). */
export const SECRET_REQUIREMENT = 'fuzz-secrets';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** A copy of `req` with every planted secret in place. */
export function withSecrets(req: RunFunctionRequest): RunFunctionRequest {
  const out = structuredClone(req);
  const [credential, connection, data, stringData] = SECRET_VALUES;
  out.credentials = { ...out.credentials, 'fuzz-credentials': { credentialData: { data: { password: bytes(credential) } } } };
  for (const r of Object.values(out.observed?.resources ?? {})) r.connectionDetails = { ...r.connectionDetails, password: bytes(connection) };
  if (out.observed?.composite) out.observed.composite.connectionDetails = { password: bytes(connection) };
  out.requiredResources = {
    ...out.requiredResources,
    [SECRET_REQUIREMENT]: {
      items: [
        {
          resource: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'fuzz-secret', namespace: 'default' },
            data: { password: Buffer.from(data).toString('base64') },
            stringData: { password: stringData },
          },
          connectionDetails: {},
          ready: 0,
        },
      ],
    },
  };
  return out;
}

/** The planted values found in `text` (a response's JSON), raw or base64. */
export function leakedSecrets(text: string): string[] {
  return SECRET_VALUES.filter((s) => text.includes(s) || text.includes(Buffer.from(s).toString('base64')));
}
