import type { TestProject } from 'vitest/node';
import { type LocalDynamo, startLocalDynamo } from '#infra/local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

// One DynamoDB Local for the whole run, shared by the projects that set it up (service and timed), kept on
// the process's global object in case each project loads this file afresh; the last teardown stops it.
const SHARED = Symbol.for('booking-service.test.localDynamo');
const scope = globalThis as typeof globalThis & {
  [SHARED]?: { dynamo: Promise<LocalDynamo>; users: number };
};

/** Starts one in-memory DynamoDB Local for the whole test run. */
export async function setup(project: TestProject): Promise<void> {
  scope[SHARED] ??= { dynamo: startLocalDynamo(), users: 0 };
  scope[SHARED].users += 1;
  project.provide('dynamoEndpoint', (await scope[SHARED].dynamo).endpoint);
}

/** Stops it once no project uses it, leaving no Java process behind. */
export async function teardown(): Promise<void> {
  const shared = scope[SHARED];
  if (!shared) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  scope[SHARED] = undefined;
  await (await shared.dynamo).stop();
}
