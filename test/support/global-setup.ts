import type { TestProject } from 'vitest/node';
import { type LocalDynamo, startLocalDynamo } from '#infra/local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

let dynamo: LocalDynamo | undefined;

/** Starts one in-memory DynamoDB Local for the whole test run. */
export async function setup(project: TestProject): Promise<void> {
  dynamo = await startLocalDynamo();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

/** Stops it, leaving no Java process behind. */
export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
