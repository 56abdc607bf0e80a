/**
 * A ModelService with priorities in plan (docs/ai-gateway.md#overflow-and-failover):
 * examples/quickstart plus Groq's endpoint and a service that overflows to
 * it. The Services table lists each endpoint with its priority, read from the
 * composed TraefikService chain.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';

const FLEET = join(REPO_ROOT, 'examples/quickstart');
const OVERFLOW = join(REPO_ROOT, 'test/plan/fixtures/overflow-groq.yaml');

interface Report {
  services: { namespace: string; name: string; ready: boolean; endpoints: { name: string; weight: number; priority?: number }[] }[];
}

describe('plan: a service with priorities', { timeout: 180_000 }, () => {
  it('lists the fleet replicas at priority 0 and Groq at priority 1, and the plain service without priorities', async () => {
    const r = await modelplane('plan', FLEET, OVERFLOW, '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    const services = (JSON.parse(r.stdout) as Report).services.map((s) => [s.name, s.ready, s.endpoints]);
    expect(services).toStrictEqual([
      ['qwen', true, [{ name: 'qwen-demo-92535', weight: 1 }, { name: 'qwen-demo-d88f9', weight: 1 }]],
      [
        'qwen-overflow',
        true,
        [
          { name: 'qwen-demo-92535', weight: 1, priority: 0 },
          { name: 'qwen-demo-d88f9', weight: 1, priority: 0 },
          { name: 'groq', weight: 1, priority: 1 },
        ],
      ],
    ]);
    const text = await modelplane('plan', FLEET, OVERFLOW);
    expect(text.stdout).toContain('│ default/qwen-overflow │ http://172.18.255.200/default/qwen-overflow │ qwen-demo-92535 (priority 0, weight 1) │');
    expect(text.stdout).toContain('│                       │                                             │ groq (priority 1, weight 1)            │');
  });
});
