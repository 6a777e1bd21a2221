import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDb, SDK_LOGGER_MIDDLEWARE } from '#lib/kernel/storage/database.ts';

// createDb drops the SDK's logger middleware (its log filter walks every input and output for a no-op
// logger); calls, their results and their errors are what they were.

/** A client whose HTTP handler answers `reply` and counts the requests it was given. */
function stubbedDb(reply: { status: number; body: Record<string, unknown>; type?: string }) {
  const db = createDb({ tableName: 't', endpoint: 'http://127.0.0.1:9', region: 'local' });
  let requests = 0;
  db.base.config.requestHandler = {
    handle: async () => {
      requests += 1;
      return {
        response: {
          statusCode: reply.status,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            ...(reply.type ? { 'x-amzn-errortype': reply.type } : {}),
          },
          body: new TextEncoder().encode(JSON.stringify(reply.body)),
        },
      };
    },
  } as never;
  return { db, requests: () => requests };
}

describe('createDb', () => {
  it('leaves the SDK logger middleware out of the client stack, which the document client shares', () => {
    const { db } = stubbedDb({ status: 200, body: {} });
    const names = db.base.middlewareStack.identify();
    expect(names.some((name) => name.startsWith('serializerMiddleware'))).toBe(true);
    expect(names.some((name) => name.startsWith(SDK_LOGGER_MIDDLEWARE))).toBe(false);
    expect(db.documents.middlewareStack.identify()).toEqual(names);
  });

  it('still unmarshals results and raises modelled errors without it', async () => {
    const found = stubbedDb({ status: 200, body: { Item: { pk: { S: 'a' }, used: { N: '3' } } } });
    const { Item } = await found.db.documents.send(
      new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }),
    );
    expect(Item).toEqual({ pk: 'a', used: 3 });

    const refused = stubbedDb({
      status: 400,
      type: 'ConditionalCheckFailedException',
      body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'no' },
    });
    const update = new UpdateCommand({
      TableName: 't',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'SET used = :u',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':u': 1 },
    });
    await expect(refused.db.documents.send(update)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect(refused.requests()).toBe(1);
  });
});
