/**
 * Schema validation for Kubernetes objects against CRDs and Crossplane XRDs:
 * XRD → CRD conversion, structural defaulting, OpenAPI + CEL validation with
 * the API server's messages, and a registry over CRD/XRD files.
 */
export { applyDefaults } from './defaults.js';
export { checkRuleTyped, compileRule, lintRule, lintSchema } from './cel.js';
export { crdKindSchemas, loadCrds, loadXrds, type ParsedDocs, parsedDocsKey, parseYamlDocs, SchemaRegistry, yamlFiles } from './registry.js';
export type { CrdDocument } from './registry.js';
export { formatFieldError } from './types.js';
export type { FieldError, JSONSchemaProps, KindSchema, ValidationRule } from './types.js';
export { validateObject } from './validate.js';
export type { ValidateOptions, ValidationResult } from './validate.js';
export { xrdToCrdSchema, xrdToCrdSchemas } from './xrd.js';
export type { Xrd } from './xrd.js';
export { describeProblem, manifestId, readManifests } from './manifests.js';
export type { Manifest } from './manifests.js';
