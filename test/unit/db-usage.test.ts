import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { countDbUsage, emptyDbUsage } from '#infra/local/db-usage.ts';

// The benchmark's opt-in DynamoDB usage hook (issue 16, point 3), against a stub HTTP handler standing in
// for DynamoDB: what each call asks for and what DynamoDB answers are set by the test.

interface Reply {
  status?: number;
  body: Record<string, unknown>;
}

/** A document client over a stub that answers `replies` in turn and keeps the request bodies. */
function stubbedClient(replies: Reply[]) {
  const sent: Record<string, unknown>[] = [];
  const base = new DynamoDBClient({
    region: 'local',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { body?: string | Uint8Array }) => {
        const body = request.body ?? '{}';
        sent.push(JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)));
        const reply = replies.shift() ?? { body: {} };
        return {
          response: {
            statusCode: reply.status ?? 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: new TextEncoder().encode(JSON.stringify(reply.body)),
          },
        };
      },
    },
  });
  const usage = emptyDbUsage();
  let changes = 0;
  const client = DynamoDBDocumentClient.from(
    countDbUsage(usage, () => {
      changes += 1;
    })(base),
  );
  return { client, sent, usage, changes: () => changes };
}

const hold = (night: number) => ({
  Update: {
    TableName: 't',
    Key: { pk: 'STOCK#1', sk: `2027010${night}` },
    UpdateExpression: 'SET used = used + :one',
    ExpressionAttributeValues: { ':one': 1 },
  },
});

describe('counting DynamoDB usage', () => {
  it('asks each call for its total consumed capacity and adds reads and writes apart', async () => {
    const { client, sent, usage, changes } = stubbedClient([
      { body: { Item: { pk: { S: 'a' } }, ConsumedCapacity: { TableName: 't', CapacityUnits: 0.5 } } },
      { body: { ConsumedCapacity: { TableName: 't', CapacityUnits: 1 } } },
    ]);
    await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    await client.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 'b' } }));
    expect(sent.map((body) => body.ReturnConsumedCapacity)).toEqual(['TOTAL', 'TOTAL']);
    expect(usage).toEqual({
      calls: { GetItem: 1, PutItem: 1 },
      failed: 0,
      unreported: 0,
      rcu: 0.5,
      wcu: 1,
      wcuAdded: 0,
    });
    expect(changes()).toBe(2);
  });

  it('sums the per-table entries of a transaction and raises it to two units a write action', async () => {
    const { client, usage } = stubbedClient([
      { body: { ConsumedCapacity: [{ TableName: 't', CapacityUnits: 2 }] } },
    ]);
    await client.send(new TransactWriteCommand({ TransactItems: [hold(1), hold(2), hold(3)] }));
    expect(usage).toMatchObject({ calls: { TransactWriteItems: 1 }, wcu: 6, wcuAdded: 4 });
  });

  it('keeps what a transaction reported when it is at least two units a write action', async () => {
    const { client, usage } = stubbedClient([
      { body: { ConsumedCapacity: [{ TableName: 't', CapacityUnits: 12 }] } },
    ]);
    await client.send(new TransactWriteCommand({ TransactItems: [hold(1), hold(2)] }));
    expect(usage).toMatchObject({ wcu: 12, wcuAdded: 0 });
  });

  it('counts a failed conditional write as a failed call without capacity', async () => {
    const { client, usage } = stubbedClient([
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
        },
      },
    ]);
    await expect(
      client.send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'a', sk: 'b' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toThrow('The conditional request failed');
    expect(usage).toEqual({ calls: { PutItem: 1 }, failed: 1, unreported: 0, rcu: 0, wcu: 0, wcuAdded: 0 });
  });

  it('counts a successful call that reported no capacity', async () => {
    const { client, usage } = stubbedClient([{ body: {} }]);
    await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    expect(usage).toMatchObject({ calls: { GetItem: 1 }, unreported: 1, rcu: 0 });
  });
});
