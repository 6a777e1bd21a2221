import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SizedLru } from '#lib/kernel/sized-lru.ts';

const lengthOf = (text: string) => text.length;

describe('SizedLru', () => {
  it('drops the least recently used (read or written) when a write goes past the bound', () => {
    const lru = new SizedLru<string, string>({ maxSize: 10, sizeOf: lengthOf });
    lru.set('a', 'aaaa');
    lru.set('b', 'bbbb');
    expect(lru.get('a')).toBe('aaaa'); // a is now the most recent
    lru.set('c', 'ccc'); // 11 > 10: b goes, not a
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('aaaa');
    expect(lru.get('c')).toBe('ccc');
    expect(lru.totalSize).toBe(7);
  });

  it('replaces a key with its new size, and keeps nothing larger than the bound', () => {
    const lru = new SizedLru<string, string>({ maxSize: 10, sizeOf: lengthOf });
    lru.set('a', 'aaaaaaaa');
    lru.set('a', 'aa');
    expect(lru.totalSize).toBe(2);
    lru.set('huge', 'x'.repeat(11));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.get('a')).toBe('aa');
    lru.delete('a');
    expect(lru.totalSize).toBe(0);
  });

  it('behaves as a model: the most recent entries that fit, never over the bound', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(6), size: fc.nat(12) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(6) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat(6) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const lru = new SizedLru<number, number>({ maxSize: 20, sizeOf: (size) => size });
        // The model: keys from least to most recent, with their sizes.
        let model: [number, number][] = [];
        for (const step of ops) {
          const found = model.find(([key]) => key === step.key);
          model = model.filter(([key]) => key !== step.key);
          if (step.kind === 'get') {
            expect(lru.get(step.key)).toBe(found?.[1]);
            if (found) model.push(found);
          } else if (step.kind === 'delete') {
            lru.delete(step.key);
          } else {
            lru.set(step.key, step.size);
            if (step.size <= 20) model.push([step.key, step.size]);
            while (model.reduce((sum, [, size]) => sum + size, 0) > 20) model.shift();
          }
          expect(lru.totalSize).toBe(model.reduce((sum, [, size]) => sum + size, 0));
          expect(lru.totalSize).toBeLessThanOrEqual(20);
        }
      }),
      { numRuns: 500 },
    );
  });
});
