import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll } from 'vitest';
import { buildStack } from './cdk.ts';

// The demo tenant's stack as the tenant stack tests (test/infra/tenant-stack*.test.ts) read it.

/** The demo tenant's template for a stage. */
export const synth = (stage: string): Template => buildStack(stage).template;

/** The prod stage's template, once `synthProdBeforeAll` has run. */
export let template: Template;

/** Synthesizes the prod stage's template before the file's tests. */
export function synthProdBeforeAll(): void {
  beforeAll(() => {
    template = synth('prod');
  });
}

/** The prod template's resources of a type, by logical id. */
export const resources = (type: string) => template.findResources(type);

/** The logical id of the prod template's resource of a type whose id matches a pattern. */
export const logicalIdOf = (type: string, pattern: RegExp) => {
  const id = Object.keys(resources(type)).find((name) => pattern.test(name));
  if (!id) throw new Error(`no ${type} like ${pattern}`);
  return id;
};
