/**
 * Whether the fleet has room for every autoscaled deployment at its maximum
 * (docs/autoscaling.md#in-a-plan): the plan once more and, once it has
 * converged, every ModelDeployment that sets `spec.autoscaling` scaled to its
 * `maxReplicas` at once, as KEDA would if demand peaked everywhere together
 * (what already runs stays where it is). A deployment that cannot place its
 * maximum there is a problem (exit 4, not accepted by `--allow-partial`):
 * KEDA would ask for replicas the fleet cannot give.
 *
 * Guarantees: one extra plan, only when some deployment autoscales; on the
 * fleet as declared (a `--lose` what-if is not applied to it); from the same
 * inputs, so the same fleet gives the same answer.
 */
import { plan, type PlanOptions } from './planner.js';
import { buildReport, type PlanReport } from './report.js';

/** Fills `placedAtMax` of every autoscaled deployment of `report` and adds a problem for each short one. */
export async function checkRoomAtMax(report: PlanReport, paths: string[], opts: PlanOptions): Promise<void> {
  const autoscaled = report.deployments.filter((d) => d.autoscaling !== undefined);
  if (autoscaled.length === 0) return;
  const { lose: _lose, ...declared } = opts;
  const atMax = buildReport(await plan(paths, { ...declared, atMaxReplicas: true }));
  const names = autoscaled.map((d) => `${d.namespace}/${d.name}`);
  for (const d of autoscaled) {
    const peak = atMax.deployments.find((x) => x.namespace === d.namespace && x.name === d.name);
    const placed = peak?.scheduledReplicas ?? 0;
    d.autoscaling!.placedAtMax = placed;
    if (placed >= d.autoscaling!.maxReplicas) continue;
    const why = peak?.conditions.find((c) => c.type === 'ReplicasScheduled' && c.status === 'False');
    const others = names.filter((n) => n !== `${d.namespace}/${d.name}`);
    const sharing = others.length > 0 ? `, sharing the fleet with ${others.join(', ')} at their maximum` : '';
    report.problems.push(
      `ModelDeployment ${d.namespace}/${d.name}: spec.autoscaling.maxReplicas is ${d.autoscaling!.maxReplicas} but the fleet places ${placed} at peak${sharing}${why ? ` (${why.message})` : ''}; add capacity or lower maxReplicas`,
    );
  }
}

/** What happens to a spec.replicas outside the bounds, by autoscaler. */
function setBack(a: NonNullable<PlanReport['deployments'][number]['autoscaling']>, replicas: number): string {
  if (a.autoscaler !== 'HPA') return 'KEDA sets it back';
  return replicas === 0 ? 'the HorizontalPodAutoscaler does not scale from zero: scale it by hand' : 'the HorizontalPodAutoscaler sets it back';
}

/** The text line of an autoscaled deployment: bounds, its autoscaler's state, room at the maximum. */
export function autoscalingLine(d: PlanReport['deployments'][number]): string | undefined {
  const a = d.autoscaling;
  if (a === undefined) return undefined;
  const room = a.placedAtMax === null ? '' : `; at maxReplicas the fleet places ${a.placedAtMax}/${a.maxReplicas}`;
  const outside = d.desiredReplicas < a.minReplicas || d.desiredReplicas > a.maxReplicas ? `; spec.replicas ${d.desiredReplicas} is outside the bounds (${setBack(a, d.desiredReplicas)})` : '';
  return `autoscaling ${a.summary ?? `${a.minReplicas}..${a.maxReplicas}`}${room}${outside}`;
}
