import { readFileSync } from 'node:fs';
import {
  BatchGetItemCommand,
  type BatchGetItemCommandInput,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  type PutItemCommandInput,
  QueryCommand,
  type QueryCommandInput,
  TransactGetItemsCommand,
  type TransactGetItemsCommandInput,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';

/** One DynamoDB call as the recorder saw it: the operation (X-Amz-Target's tail) and its JSON body. */
export interface RecordedCall {
  operation: string;
  input: Record<string, unknown>;
}

/** What the floor does: its calls (each batch at once, the batches in turn) and the answer it returns. */
export interface FloorScript {
  batches: RecordedCall[][];
  response: unknown;
}

const script = JSON.parse(readFileSync(process.env.COLD_FLOOR_SCRIPT ?? '', 'utf8')) as FloorScript;
// Built as the service's own client is against a local endpoint (lib/kernel/storage/database.ts): inline credentials.
const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

// The low-level commands by operation: on the wire (JSON 1.0) a DynamoDB command's input is its body.
const COMMANDS: Record<string, (input: never) => Promise<unknown>> = {
  BatchGetItem: (input: BatchGetItemCommandInput) => client.send(new BatchGetItemCommand(input)),
  GetItem: (input: GetItemCommandInput) => client.send(new GetItemCommand(input)),
  PutItem: (input: PutItemCommandInput) => client.send(new PutItemCommand(input)),
  Query: (input: QueryCommandInput) => client.send(new QueryCommand(input)),
  TransactGetItems: (input: TransactGetItemsCommandInput) => client.send(new TransactGetItemsCommand(input)),
  TransactWriteItems: (input: TransactWriteItemsCommandInput) =>
    client.send(new TransactWriteItemsCommand(input)),
  UpdateItem: (input: UpdateItemCommandInput) => client.send(new UpdateItemCommand(input)),
};

/** The floor of a cold start: the recorded calls with a bare client, then the recorded answer. */
export const handler = async (): Promise<unknown> => {
  for (const batch of script.batches) {
    await Promise.all(
      batch.map((call) => {
        const send = COMMANDS[call.operation];
        if (!send) throw new Error(`the floor cannot replay ${call.operation}`);
        return send(call.input as never);
      }),
    );
  }
  return script.response;
};
