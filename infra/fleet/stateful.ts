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
  'AWS::SecretsManager::Secret': 'a secret: its value is loaded after deploy, and ARNs name it',
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

/** Why a resource is stateful (what a replacement or removal would lose), or undefined when it is not. */
export function statefulReason(resource: CfnResource | undefined): string | undefined {
  if (!resource) return undefined;
  const byType = STATEFUL_TYPES[resource.Type];
  if (byType) return byType;
  const kept = [resource.DeletionPolicy, resource.UpdateReplacePolicy].find(
    (policy) => policy !== undefined && KEEPING_POLICIES.has(policy),
  );
  return kept ? `its template keeps it (${kept}): it holds data` : undefined;
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
