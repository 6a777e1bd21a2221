import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { customerEmailKey, customerKey } from '../kernel/storage/keys.ts';
import { stripKeys } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';

/**
 * A customer as stored: an id and the email its bookings are filed under, nothing anyone typed about them.
 * Its name, phone and address are read from its bookings (see `findCustomer`), never stored here, so the
 * first booking with an email (anyone's) cannot write them.
 */
export interface StoredCustomer {
  customer_id: number;
  code: string;
  status_id: string;
  email: string;
  /** The first booking's form fields, written by earlier versions; never shown. */
  fields?: Record<string, string>;
  created_date: number;
}

/** Reads a customer. */
export async function getCustomer(db: Db, customerId: number): Promise<StoredCustomer | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: customerKey(customerId) }),
  );
  return Item ? stripKeys<StoredCustomer>(Item) : undefined;
}

/** The customer id an email belongs to. */
export async function getCustomerIdByEmail(db: Db, email: string): Promise<number | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: customerEmailKey(email), ConsistentRead: true }),
  );
  return Item ? Number(Item.customer_id) : undefined;
}

/** Creates a customer and claims its email (fails if another customer claimed it first). */
export function createCustomerActions(db: Db, customer: StoredCustomer): TransactItem[] {
  return [
    {
      Put: {
        TableName: db.tableName,
        Item: { ...customerKey(customer.customer_id), entity: 'customer', ...customer },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: db.tableName,
        Item: {
          ...customerEmailKey(customer.email),
          entity: 'customer_email',
          customer_id: customer.customer_id,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}
