import { readFileSync } from 'node:fs';
import { request } from 'node:http';
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
import type { FloorScript } from './cold-floor-handler.ts';

// The floor of a cold start that calls the payment provider (issue 43): cold-floor-handler.ts's replay of the
// recorded DynamoDB calls, plus the provider's calls (`HTTP`) sent again with node:http to STRIPE_API_BASE.
// A file of its own so that the floor every other case (and every bundle budget) is measured against is the
// same file as before; it carries the commands the payment cases make.

/** A provider call as the recorder kept it (cold-recorder.ts). */
interface ProviderCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const script = JSON.parse(readFileSync(process.env.COLD_FLOOR_SCRIPT ?? '', 'utf8')) as FloorScript;
const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const provider = new URL(process.env.STRIPE_API_BASE ?? 'http://127.0.0.1');

/** Sends a provider call again; anything but a 2xx stops the floor, as the function's own did not fail. */
const send = (call: ProviderCall) =>
  new Promise<void>((resolve, reject) => {
    const outgoing = request(
      {
        host: provider.hostname,
        port: provider.port,
        method: call.method,
        path: call.path,
        headers: call.headers,
      },
      (answer) => {
        answer.resume();
        answer.on('end', () =>
          (answer.statusCode ?? 500) < 300
            ? resolve()
            : reject(new Error(`the provider answered ${answer.statusCode} to ${call.method} ${call.path}`)),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(call.body);
  });

// The same commands as the plain floor's, so the two bundles differ only by the provider's replay.
const COMMANDS: Record<string, (input: never) => Promise<unknown>> = {
  BatchGetItem: (input: BatchGetItemCommandInput) => client.send(new BatchGetItemCommand(input)),
  GetItem: (input: GetItemCommandInput) => client.send(new GetItemCommand(input)),
  PutItem: (input: PutItemCommandInput) => client.send(new PutItemCommand(input)),
  Query: (input: QueryCommandInput) => client.send(new QueryCommand(input)),
  TransactGetItems: (input: TransactGetItemsCommandInput) => client.send(new TransactGetItemsCommand(input)),
  TransactWriteItems: (input: TransactWriteItemsCommandInput) =>
    client.send(new TransactWriteItemsCommand(input)),
  UpdateItem: (input: UpdateItemCommandInput) => client.send(new UpdateItemCommand(input)),
  HTTP: (input: ProviderCall) => send(input),
};

/** The floor of a cold start with provider calls: the recorded calls, each batch at once, then the answer. */
export const handler = async (): Promise<unknown> => {
  for (const batch of script.batches) {
    await Promise.all(
      batch.map((call) => {
        const replay = COMMANDS[call.operation];
        if (!replay) throw new Error(`the floor cannot replay ${call.operation}`);
        return replay(call.input as never);
      }),
    );
  }
  return script.response;
};
