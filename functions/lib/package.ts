/**
 * Where this tree's images are published: the registry/org of the function
 * images and the version every package of this tree carries. The CLI's
 * packaging (cli/package.ts) and any function that composes a workload from
 * one of our images (the key validator: compose-inference-gateway) read the
 * same two constants, so a release bumps them in one place.
 */

/** Registry and org of our function images (`<registry>/function-<folder>:<version>`). */
export const FUNCTION_REGISTRY = 'xpkg.modelplane.ai/modelplane';
/** Version of the packages this tree builds. */
export const PACKAGE_VERSION = 'v0.1.0';

/** The image of function folder `folder` at this tree's version, e.g. `xpkg.modelplane.ai/modelplane/function-compose-inference-gateway:v0.1.0`. */
export function functionImage(folder: string): string {
  return `${FUNCTION_REGISTRY}/function-${folder}:${PACKAGE_VERSION}`;
}
