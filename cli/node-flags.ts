/**
 * The Node (V8) flags every function process runs with, wherever it runs:
 * the image's ENTRYPOINT (Dockerfile; test/package/package.test.ts checks
 * the two agree), `modelplane serve` as `dev up` starts it, spawnFunction
 * (cli/functions.ts) and the benches. Imports nothing.
 *
 * `--no-memory-reducer`: V8's memory reducer runs full garbage collections
 * after a few seconds without allocation, shrinking the heap and ageing
 * compiled code, so that the next call rebuilds both. A function serves one
 * XR every few seconds to a minute, with idle gaps in between (Crossplane's
 * cadence), and paid that on nearly every call: the scheduler's first call
 * after 15 s idle took 4–55 ms instead of 1.3–2.6 ms warm. The heap still
 * shrinks on the ordinary collections allocation triggers; the figures are
 * in README "Performance" (`npm run bench -- scheduler`, the cadence rows).
 *
 * `--min-semi-space-size=16`: the young generation never shrinks below two
 * 16-MiB semi-spaces (16 MiB is already V8's maximum here, so it is fixed).
 * Without it, the first collection after an idle gap sees a low allocation
 * rate and shrinks the young generation to its 1-MiB floor (V8's
 * `Heap::ReduceNewSpaceSize`), so a 1,000-cluster request, which allocates
 * tens of MiB while its decoded tree is live, runs through eight to ten
 * scavenges that copy that tree instead of one, and page-faults the space
 * back in. Cost: up to 32 MiB of young generation stays committed while idle.
 */
export const FUNCTION_NODE_FLAGS: readonly string[] = ['--no-memory-reducer', '--min-semi-space-size=16'];
