/**
 * The scheduler's taint and toleration cases,
 * docs/kinds/modeldeployment.md#taints-and-tolerations:
 * whole-outcome table tests. Clusters a and b are identical except for a's taints.
 */
import { describe, expect, it } from 'vitest';
import { ReasonKind as K } from '../../functions/schedule-model-deployment/placement.js';
import { cand, cluster, deployment, type Outcome, replica, retiring, runSchedule } from '../builders/scheduler.js';

const a = 'cluster-a';
const b = 'cluster-b';
const noSchedule = { key: 'maintenance', effect: 'NoSchedule' };
const noExecute = { key: 'maintenance', effect: 'NoExecute' };
const fleet = (...taints: object[]) => [cluster(a, { taints: taints as never[] }), cluster(b)];
const tol = (...tolerations: object[]) => deployment({ tolerations: tolerations as never[] });
const refused = (text: string) => ({ [a]: { kind: K.Taint, text: `untolerated taint ${text}` } });

interface Case {
  name: string;
  reason: string;
  run: () => Outcome;
  want: Outcome;
}

const cases: Case[] = [
  {
    name: 'no-schedule-repels',
    reason: 'NoSchedule on a: the new replica goes to b',
    run: () => runSchedule({ clusters: fleet(noSchedule) }),
    want: { candidates: [cand(b, 0)], refusals: refused('maintenance:NoSchedule') },
  },
  {
    name: 'no-schedule-keeps-existing',
    reason: 'NoSchedule leaves the existing replica on a',
    run: () => runSchedule({ clusters: fleet(noSchedule), replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'exists-tolerates',
    reason: 'an Exists toleration of the key allows a',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Exists' }), clusters: fleet(noSchedule) }),
    want: { candidates: [cand(a, 0)], refusals: {} },
  },
  {
    name: 'no-execute-drains',
    reason: 'NoExecute drains a by surge: the replica is re-placed on b first and stays on a (retiring) until b/0 is Ready',
    run: () => runSchedule({ clusters: fleet(noExecute), replicas: [replica(a, 0)] }),
    want: { candidates: [retiring(a, 0), cand(b, 0, undefined, { role: 'surge' })], refusals: refused('maintenance:NoExecute') },
  },
  {
    name: 'no-execute-drained-once-replaced',
    reason: 'once the replacement on b is Ready, the replica on the NoExecute cluster goes',
    run: () => runSchedule({ clusters: fleet(noExecute), replicas: [replica(a, 0, { ready: true }), replica(b, 0, { ready: true })] }),
    want: { candidates: [cand(b, 0, undefined, { retained: true, ready: true })], refusals: {} },
  },
  {
    name: 'no-execute-tolerated',
    reason: 'a tolerated NoExecute taint retains the replica',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Exists', effect: 'NoExecute' }), clusters: fleet(noExecute), replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'no-execute-nowhere',
    reason: 'NoExecute with nowhere else to go keeps the replica running (retiring, the rollout blocked)',
    run: () => runSchedule({ clusters: [cluster(a, { taints: [noExecute] })], replicas: [replica(a, 0)] }),
    want: { candidates: [retiring(a, 0)], refusals: refused('maintenance:NoExecute') },
  },
  {
    name: 'effect-mismatch',
    reason: 'a toleration with effect NoSchedule does not cover NoExecute',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Exists', effect: 'NoSchedule' }), clusters: fleet(noExecute), replicas: [replica(a, 0)] }),
    want: { candidates: [retiring(a, 0), cand(b, 0, undefined, { role: 'surge' })], refusals: refused('maintenance:NoExecute') },
  },
  {
    name: 'second-taint-repels',
    reason: 'tolerating one taint does not cover a second',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Exists' }), clusters: fleet(noSchedule, { key: 'gpu-burn', effect: 'NoSchedule' }) }),
    want: { candidates: [cand(b, 0)], refusals: refused('gpu-burn:NoSchedule') },
  },
  {
    name: 'equal-value-on',
    reason: 'Equal with the taint value "on" tolerates',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Equal', value: 'on' }), clusters: fleet({ ...noSchedule, value: 'on' }) }),
    want: { candidates: [cand(a, 0)], refusals: {} },
  },
  {
    name: 'equal-value-off',
    reason: 'Equal with value "off" does not tolerate "on"',
    run: () => runSchedule({ deployment: tol({ key: 'maintenance', operator: 'Equal', value: 'off' }), clusters: fleet({ ...noSchedule, value: 'on' }) }),
    want: { candidates: [cand(b, 0)], refusals: refused('maintenance=on:NoSchedule') },
  },
  {
    name: 'keyless-exists',
    reason: 'a key-less Exists toleration tolerates everything',
    run: () => runSchedule({ deployment: tol({ operator: 'Exists' }), clusters: fleet(noSchedule, noExecute), replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
];

describe('scheduler acceptance (docs/kinds/modeldeployment.md#taints-and-tolerations)', () => {
  it.each(cases)('$name: $reason', ({ run, want }) => {
    expect(run()).toEqual(want);
  });
});
