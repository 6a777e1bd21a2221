/** A CloudFormation resource as a template holds it. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  [key: string]: unknown;
}

/** A CloudFormation template (JSON). */
export interface CfnTemplate {
  Resources?: Record<string, CfnResource>;
  Metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * Resource types whose replacement or removal loses what they hold, whatever their deletion policy (a
 * `dev` stack destroys its table with the stack, yet a replaced dev table still starts empty under a
 * running stack). Log groups are not here: a log group is stateful when it is kept (Retain), below.
 */
const STATEFUL_TYPES: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::Table': 'the bookings table',
  'AWS::DynamoDB::GlobalTable': 'the bookings table',
  'AWS::SQS::Queue': 'a queue: the webhook dead letters waiting to be replayed',
  'AWS::Backup::BackupVault': 'a backup vault: its recovery points',
  'AWS::S3::Bucket': 'a bucket: its objects',
  'AWS::KMS::Key': 'a KMS key: what it encrypted',
  'AWS::Cognito::UserPool': 'a user pool: its users',
  'AWS::RDS::DBCluster': 'a database cluster',
  'AWS::RDS::DBInstance': 'a database instance',
  'AWS::EFS::FileSystem': 'a file system',
};

/** Deletion policies that say the resource holds something worth keeping when the stack lets it go. */
const KEEPING_POLICIES = new Set(['Retain', 'RetainExceptOnCreate', 'Snapshot']);

/** The policy a resource is kept by when the stack lets it go (Retain, Snapshot), if any. */
export const keptBy = (resource: CfnResource | undefined): string | undefined =>
  [resource?.DeletionPolicy, resource?.UpdateReplacePolicy].find(
    (policy) => policy !== undefined && KEEPING_POLICIES.has(policy),
  );

/**
 * Why a resource is stateful (what a replacement or removal would lose), or undefined when it is not. A
 * secret is stateful when it is kept: the SLIP key and the webhook secrets outside `dev` (their values are
 * loaded after deploy, and ARNs name them); the edge's origin token goes with the stack and is replaced by
 * design when it rotates.
 */
export function statefulReason(resource: CfnResource | undefined): string | undefined {
  if (!resource) return undefined;
  const byType = STATEFUL_TYPES[resource.Type];
  if (byType) return byType;
  const kept = keptBy(resource);
  if (!kept) return undefined;
  return resource.Type === 'AWS::SecretsManager::Secret'
    ? `a secret (${kept}): its value is loaded after deploy, and ARNs name it`
    : `its template keeps it (${kept}): it holds data`;
}

/** Keys whose `true` protects what a resource holds (a table's deletion protection, its recovery window). */
const PROTECTIONS = ['DeletionProtectionEnabled', 'PointInTimeRecoveryEnabled'];

const protectionsOn = (value: unknown, found = new Set<string>(), path = ''): Set<string> => {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) protectionsOn(item, found, `${path}[${index}]`);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (PROTECTIONS.includes(key) && inner === true) found.add(here);
      else protectionsOn(inner, found, here);
    }
  }
  return found;
};

/**
 * What an update in place would cost a stateful resource, or undefined: its deletion policy no longer
 * keeping it (a later removal, even a stack's deletion, would destroy it), a protection turned off
 * (deletion protection, point-in-time recovery and its 35 days), or a secret's value written anew by
 * CloudFormation (the loaded webhook secrets overwritten, a new SLIP key that no SLIP handed out verifies).
 */
export function weakening(
  before: CfnResource | undefined,
  after: CfnResource | undefined,
): string | undefined {
  if (!before || !after || !statefulReason(before)) return undefined;
  const kept = keptBy(before);
  if (kept && !keptBy(after)) return `no longer kept (${kept} → ${after.DeletionPolicy ?? 'Delete'})`;
  const lost = [...protectionsOn(before.Properties)].filter(
    (path) => !protectionsOn(after.Properties).has(path),
  );
  if (lost.length > 0) return `protection turned off: ${lost.join(', ')}`;
  if (before.Type === 'AWS::SecretsManager::Secret') {
    const value = (resource: CfnResource) =>
      JSON.stringify([resource.Properties?.SecretString, resource.Properties?.GenerateSecretString]);
    if (value(before) !== value(after)) return 'its value would be written anew, replacing what was loaded';
  }
  return undefined;
}

/** The logical ids of a template's stateful resources, sorted. */
export function statefulLogicalIds(template: CfnTemplate): string[] {
  return Object.entries(template.Resources ?? {})
    .filter(([, resource]) => statefulReason(resource) !== undefined)
    .map(([id]) => id)
    .sort();
}

/** A CloudFormation stack policy document. */
export interface StackPolicy {
  Statement: {
    Effect: 'Allow' | 'Deny';
    Action: string | string[];
    Principal: '*';
    Resource: string | string[];
  }[];
}

/** The largest stack policy body CloudFormation takes (SetStackPolicy, StackPolicyBody). */
export const STACK_POLICY_MAX_LENGTH = 16_384;

/** Every update allowed: what a stack without a policy gets, and the override's window for one deploy. */
export const ALLOW_ALL_POLICY: StackPolicy = {
  Statement: [{ Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' }],
};

/**
 * The stack policy the fleet sets after a deploy: every update allowed, except replacing or deleting a
 * stateful resource of the template (by logical id), so a later update that would is refused by
 * CloudFormation itself, whoever runs it. Updates in place (a new TTL, a new index) stay allowed.
 */
export function stackPolicyFor(template: CfnTemplate): StackPolicy {
  const ids = statefulLogicalIds(template);
  const policy: StackPolicy = {
    Statement: [
      ...ALLOW_ALL_POLICY.Statement,
      ...(ids.length > 0
        ? [
            {
              Effect: 'Deny' as const,
              Action: ['Update:Replace', 'Update:Delete'],
              Principal: '*' as const,
              Resource: ids.map((id) => `LogicalResourceId/${id}`),
            },
          ]
        : []),
    ],
  };
  const length = JSON.stringify(policy).length;
  if (length > STACK_POLICY_MAX_LENGTH) {
    throw new Error(
      `the stack policy is ${length} characters, over CloudFormation's ${STACK_POLICY_MAX_LENGTH}`,
    );
  }
  return policy;
}
