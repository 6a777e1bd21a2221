import { fullDiff } from '@aws-cdk/cloudformation-diff';
import { type CfnTemplate, statefulReason, weakening } from './stateful.ts';

/** How a resource changes, as the table counts it. */
export type ChangeKind = 'added' | 'changed' | 'replaced' | 'removed';

/** One resource that differs between the baseline template and the new one. */
export interface ResourceChange {
  logicalId: string;
  type: string;
  /** `@aws-cdk/cloudformation-diff`'s verdict: WILL_CREATE, WILL_UPDATE, WILL_REPLACE, MAY_REPLACE, … */
  impact: string;
  kind: ChangeKind;
  /** What the resource holds, when it is stateful. */
  stateful?: string;
  /** A removed stateful resource: the added ones of the same type, a rename's other half. */
  addedInstead?: string[];
  /** An update in place that would cost a stateful resource its protection or its value. */
  weakened?: string;
}

/** Everything that differs in one stack. */
export interface StackChanges {
  changes: ResourceChange[];
  counts: Record<ChangeKind, number>;
  /** Stateful resources that would be replaced (or may be), destroyed or orphaned. */
  dangerous: ResourceChange[];
}

/** Impacts that lose a stateful resource's data: a new physical resource, or none left in the stack. */
const LOSING = new Set(['WILL_REPLACE', 'MAY_REPLACE', 'WILL_DESTROY', 'WILL_ORPHAN']);

const kindOf = (impact: string, added: boolean, removed: boolean): ChangeKind => {
  if (added) return 'added';
  if (removed) return 'removed';
  return impact === 'WILL_REPLACE' || impact === 'MAY_REPLACE' ? 'replaced' : 'changed';
};

/** What an asset reference reads once its key is set aside. */
export const ASSET_PLACEHOLDER = '(asset)';

/**
 * A copy of a template with its assets' keys set aside: without bundling an asset's key is a hash of
 * its construct and of options that hold the tree's absolute path (so it differs between a worktree and
 * the working tree, and from the deployed one's real hash), never of the code. The diff therefore never
 * sees a function's code; `deploy` deploys every tenant, changed or not.
 */
export function withoutAssetKeys(template: CfnTemplate): CfnTemplate {
  const copy = structuredClone(template);
  for (const resource of Object.values(copy.Resources ?? {})) {
    const metadata = resource.Metadata as Record<string, unknown> | undefined;
    const property = metadata?.['aws:asset:property'];
    if (!metadata || typeof property !== 'string') continue;
    for (const key of Object.keys(metadata)) if (key.startsWith('aws:asset:')) delete metadata[key];
    const value = resource.Properties?.[property];
    if (value && typeof value === 'object' && 'S3Key' in value) {
      (value as Record<string, unknown>).S3Key = ASSET_PLACEHOLDER;
    } else if (resource.Properties && value !== undefined) {
      resource.Properties[property] = ASSET_PLACEHOLDER;
    }
  }
  return copy;
}

/**
 * Classifies every resource difference from `base` (undefined: no stack yet) to `next`. A construct
 * renamed shows as a removal and an addition (its logical id changed): the removal of a stateful resource
 * is dangerous (WILL_ORPHAN when retained, WILL_DESTROY otherwise) and names the additions of its type.
 */
export function diffStack(base: CfnTemplate | undefined, next: CfnTemplate): StackChanges {
  // fullDiff normalises what it is given: it gets copies.
  const diff = fullDiff(base ? withoutAssetKeys(base) : {}, withoutAssetKeys(next));
  const changes: ResourceChange[] = [];
  diff.resources.forEachDifference((logicalId, change) => {
    const impact = String(change.changeImpact);
    const kind = kindOf(impact, change.isAddition, change.isRemoval);
    const stateful = statefulReason(change.oldValue) ?? statefulReason(change.newValue);
    const weakened = weakening(change.oldValue, change.newValue);
    changes.push({
      logicalId,
      type: change.oldResourceType ?? change.newResourceType ?? change.resourceType ?? '?',
      impact,
      kind,
      ...(stateful ? { stateful } : {}),
      ...(weakened ? { weakened } : {}),
    });
  });
  changes.sort((a, b) => a.logicalId.localeCompare(b.logicalId));
  const dangerous = changes.filter(
    (change) => (change.stateful && LOSING.has(change.impact)) || change.weakened !== undefined,
  );
  for (const change of dangerous) {
    if (change.kind !== 'removed') continue;
    const added = changes.filter((other) => other.kind === 'added' && other.type === change.type);
    if (added.length > 0) change.addedInstead = added.map((other) => other.logicalId);
  }
  const counts: Record<ChangeKind, number> = { added: 0, changed: 0, replaced: 0, removed: 0 };
  for (const change of changes) counts[change.kind] += 1;
  return { changes, counts, dangerous };
}
