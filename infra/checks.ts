import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';

/**
 * Runs cdk-nag's AwsSolutions and Serverless checks when the app synthesizes: any finding not acknowledged
 * (with its reason, `Validations.of(construct).acknowledge`) on the construct or one of its parents fails
 * synth.
 */
export function addStackChecks(app: App): AwsSolutionsChecks {
  // cdk-nag 3 is a policy validation plugin, no longer an aspect; verbose adds each rule's explanation.
  const checks = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(checks, new ServerlessChecks(app, { verbose: true }));
  return checks;
}
