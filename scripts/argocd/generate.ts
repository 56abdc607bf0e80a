/**
 * `npm run argocd:generate`: writes deploy/argocd/argocd-cm-patch.yaml and
 * the per-kind tables of docs/argocd.md from scripts/argocd/rules.ts and
 * deploy/argocd/health.lua (docs/argocd.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DOCS_PATH, PATCH_PATH, renderPatch, replaceTables } from './emit.js';

writeFileSync(PATCH_PATH, renderPatch());
writeFileSync(DOCS_PATH, replaceTables(readFileSync(DOCS_PATH, 'utf8')));
process.stdout.write('wrote deploy/argocd/argocd-cm-patch.yaml and the tables of docs/argocd.md\n');
