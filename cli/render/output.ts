/**
 * Render's output format (crossplane.md §2.4): a YAML stream, every document
 * preceded by `---`, written by {@link goYaml} exactly as the Kubernetes YAML
 * serializer writes it (checked against the real CLI by test/conformance);
 * {@link toYaml} approximates the same style for our other files: map keys
 * in alphabetical order at every level, sequences not indented under their
 * key, and strings that YAML 1.1 would read as another type quoted.
 */
import { stringify } from 'yaml';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import type { RenderOutput } from './engine.js';
import { goYaml } from './goyaml.js';
import { deepMerge } from './xr.js';

/** One document in render's style, without the leading `---`. */
export function toYaml(obj: unknown): string {
  return stringify(obj, {
    sortMapEntries: true,
    indentSeq: false,
    version: '1.1',
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
  });
}

/** Options of {@link formatRender}: render's `-x`, `-r`, `-c`. */
export interface FormatOptions {
  includeFullXr?: boolean;
  includeResults?: boolean;
  includeContext?: boolean;
  /** The input XR, merged under the output XR with `-x`. */
  inputXr?: KubeObject;
}

/** The documents render prints, in order: XR, composed resources, Results, Context. */
export function renderDocuments(out: RenderOutput, opts: FormatOptions = {}): unknown[] {
  const docs: unknown[] = [];
  docs.push(opts.includeFullXr && opts.inputXr ? deepMerge(opts.inputXr, out.xr) : out.xr);
  docs.push(...out.composed);
  if (opts.includeResults) {
    for (const r of out.results) {
      if (r.severity === 'Fatal') continue;
      docs.push({
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'Result',
        message: r.message,
        reason: r.reason,
        severity: r.severity,
        step: r.step,
      });
    }
  }
  if (opts.includeContext) {
    docs.push({ apiVersion: 'render.crossplane.io/v1beta1', kind: 'Context', fields: out.context as JsonObject });
  }
  return docs;
}

/** The whole YAML stream. */
export function formatRender(out: RenderOutput, opts: FormatOptions = {}): string {
  return renderDocuments(out, opts)
    .map((d) => `---\n${goYaml(d)}`)
    .join('');
}
