/**
 * Render's output format (docs/composition.md#output-format): a YAML stream, every document
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
    // The real engine's events (render prints them as Results): the Composition selected, each
    // function result prefixed with its step, then a fatal result's error or one event per
    // unready resource (the real engine emits those in Go map order; ours are sorted).
    const result = (severity: string, reason: string, message: string) => ({
      apiVersion: 'render.crossplane.io/v1beta1',
      kind: 'Result',
      message,
      reason,
      severity,
    });
    if (out.compositionName !== undefined) {
      docs.push(result('Normal', 'SelectComposition', `Successfully selected composition: ${out.compositionName}`));
    }
    for (const r of out.results) {
      if (r.severity === 'Fatal') continue;
      docs.push(result(r.severity, r.reason, `Pipeline step "${r.step}": ${r.message}`));
    }
    const fatal = out.results.find((r) => r.severity === 'Fatal');
    if (out.fatal !== undefined && fatal) {
      const error = `cannot compose resources: pipeline step "${fatal.step}" returned a fatal result: ${fatal.message}`;
      docs.push(result('Warning', 'ComposeResources', error));
    } else {
      for (const key of Object.keys(out.readiness).sort()) {
        if (!out.readiness[key]) docs.push(result('Normal', 'ComposeResources', `Composed resource "${key}" is not yet ready`));
      }
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
