import { describe, expect, it } from 'vitest';
import { stripKeys } from '#lib/kernel/storage/operations.ts';
import { KEY_ATTRIBUTES, TABLE_DEFINITION } from '#lib/kernel/storage/table-definition.ts';

describe('stripKeys', () => {
  it('drops every key attribute the table definition names, the entity type and the TTL', () => {
    const record = Object.fromEntries(
      [...KEY_ATTRIBUTES, 'entity', TABLE_DEFINITION.ttlAttribute].map((name) => [name, 'x']),
    );
    expect(stripKeys({ ...record, id: 'cart-1', holds: {} })).toEqual({ id: 'cart-1', holds: {} });
  });
});
