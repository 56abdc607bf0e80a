/**
 * Key scopes (functions/lib/key-scope.ts): the label selector string grammar
 * kubectl -l takes, and which services a key Secret's annotations open.
 */
import { describe, expect, it } from 'vitest';
import { keyScope, labelsMatch, parseLabelSelector, scopeOpens } from '../../functions/lib/key-scope.js';

describe('parseLabelSelector', () => {
  it('reads equality, set and existence requirements', () => {
    expect(parseLabelSelector('team=a, tier!=batch,env in (prod, staging),x notin (y),gpu,!internal,app.kubernetes.io/name==chat')).toStrictEqual([
      { key: 'team', op: 'in', values: ['a'] },
      { key: 'tier', op: 'notin', values: ['batch'] },
      { key: 'env', op: 'in', values: ['prod', 'staging'] },
      { key: 'x', op: 'notin', values: ['y'] },
      { key: 'gpu', op: 'exists' },
      { key: 'internal', op: '!' },
      { key: 'app.kubernetes.io/name', op: 'in', values: ['chat'] },
    ]);
  });
  it('names what is wrong', () => {
    expect(() => parseLabelSelector('team=a,')).toThrow('empty requirement in "team=a,"');
    expect(() => parseLabelSelector('team in a')).toThrow('"team in a" is not a requirement');
    expect(() => parseLabelSelector('-bad=a')).toThrow('"-bad" is not a label key');
    expect(() => parseLabelSelector('team=a b')).toThrow('is not a requirement');
  });
  it('matches as Kubernetes does: != and notin hold when the key is absent', () => {
    const r = parseLabelSelector('tier!=batch,env notin (dev)');
    expect([labelsMatch(r, {}), labelsMatch(r, { tier: 'batch' }), labelsMatch(r, { env: 'dev' }), labelsMatch(r, { tier: 'online', env: 'prod' })]).toStrictEqual([
      true,
      false,
      false,
      true,
    ]);
  });
});

describe('keyScope and scopeOpens', () => {
  const chat = { namespace: 'team-a', name: 'chat', labels: { team: 'a' } };
  it('no annotation opens every service that accepts the Secret', () => {
    expect(scopeOpens(keyScope(undefined), chat)).toBe(true);
  });
  it('a list of services, a namespace wildcard, a selector: any one opens', () => {
    expect(scopeOpens(keyScope({ 'modelplane.ai/services': 'team-a/chat' }), chat)).toBe(true);
    expect(scopeOpens(keyScope({ 'modelplane.ai/services': 'team-a/*' }), chat)).toBe(true);
    expect(scopeOpens(keyScope({ 'modelplane.ai/services': 'team-b/chat, team-a/code' }), chat)).toBe(false);
    expect(scopeOpens(keyScope({ 'modelplane.ai/services': 'team-b/chat', 'modelplane.ai/service-selector': 'team=a' }), chat)).toBe(true);
    expect(scopeOpens(keyScope({ 'modelplane.ai/service-selector': 'team=b' }), chat)).toBe(false);
  });
  it('a malformed annotation opens nothing and says why', () => {
    const s = keyScope({ 'modelplane.ai/services': 'chat' });
    expect(s).toStrictEqual({ kind: 'invalid', message: 'annotation modelplane.ai/services: "chat" is not <namespace>/<name> or <namespace>/*' });
    expect(scopeOpens(s, chat)).toBe(false);
  });
});
