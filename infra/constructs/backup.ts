import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** Props of the tenant's backups. */
export interface TenantBackupProps {
  table: TableV2;
  /** `deployment.backup.retention_days` of the tenant file. */
  retentionDays: number;
}

/**
 * A daily AWS Backup of the tenant table into a vault of its own, kept `retentionDays`: what remains when
 * point-in-time recovery cannot help (the table deleted with its recovery window, a mistake noticed after 35
 * days). The vault outlives the stack; the restore runbook is in docs/deploy.md.
 */
export class TenantBackup extends Construct {
  readonly vault: BackupVault;
  readonly plan: BackupPlan;

  constructor(scope: Construct, id: string, props: TenantBackupProps) {
    super(scope, id);
    this.vault = new BackupVault(this, 'Vault', { removalPolicy: RemovalPolicy.RETAIN });
    this.plan = new BackupPlan(this, 'Plan', { backupVault: this.vault });
    this.plan.addRule(
      new BackupPlanRule({
        ruleName: 'Daily',
        // 03:00 UTC, within an hour, done within three: before most of the Americas' and after Europe's day.
        scheduleExpression: Schedule.cron({ hour: '3', minute: '0' }),
        startWindow: Duration.hours(1),
        completionWindow: Duration.hours(3),
        deleteAfter: Duration.days(props.retentionDays),
      }),
    );
    // The selection's role (AWS Backup's managed policies for backup and restore) also runs the runbook's
    // restore job, so restoring needs no role of its own.
    const selection = this.plan.addSelection('Table', {
      resources: [BackupResource.fromArn(props.table.tableArn)],
      allowRestores: true,
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason:
        "AWS Backup's own policy for the backups it takes, as AWS maintains it for every resource type; " +
        'the selection limits what this plan backs up to the tenant table.',
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
      reason:
        "AWS Backup's own policy for restore jobs, which the runbook's restore into a new table runs with " +
        'this role.',
    });
    // Stable output names: the runbook reads them with `describe-stacks`.
    new CfnOutput(this, 'VaultName', {
      value: this.vault.backupVaultName,
      description: 'The backup vault of the tenant table (kept when the stack is deleted)',
    }).overrideLogicalId('BackupVaultName');
    new CfnOutput(this, 'RoleArn', {
      value: (selection.grantPrincipal as IRole).roleArn,
      description: 'The role a restore job runs with (docs/deploy.md, "Restoring a lost table")',
    }).overrideLogicalId('BackupRoleArn');
  }
}
