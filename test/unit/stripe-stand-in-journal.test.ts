import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journaled } from '#infra/local/stripe/journal.ts';

// The stand-in's memory across kills: a snapshot written atomically plus a journal of what changed since.

const dir = mkdtempSync(join(tmpdir(), 'stripe-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Record = { id: string; status: string; items?: string[] };
const empty = () => ({
  seq: 0,
  sessions: {} as { [id: string]: Record },
  intents: {},
  charges: {},
  refunds: {},
  events: {},
  deliveries: {},
  idempotency: {} as { [id: string]: Record },
});

describe('the journal', () => {
  it('brings back, after a kill (no compaction), every record set, changed or deleted and each top-level field', () => {
    const file = join(dir, 'kill.json');
    const first = new Journaled(file, empty);
    first.state.sessions.a = { id: 'a', status: 'open' };
    first.state.sessions.b = { id: 'b', status: 'open' };
    first.state.idempotency.k = { id: 'k', status: 'kept' };
    first.state.seq = 2;
    first.flush();
    const a = first.state.sessions.a as Record;
    a.status = 'complete';
    delete first.state.sessions.b;
    delete first.state.idempotency.k;
    first.flush();
    // No compact(): the process was killed.
    const second = new Journaled(file, empty);
    expect(second.state.sessions).toEqual({ a: { id: 'a', status: 'complete' } });
    expect([second.state.idempotency, second.state.seq]).toEqual([{}, 2]);
    // Loading folded the journal into the snapshot.
    expect(JSON.parse(readFileSync(file, 'utf8')).sessions.a.status).toBe('complete');
    expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
  });

  it('appends nothing when nothing changed, and only what changed when something did', () => {
    const file = join(dir, 'small.json');
    const journal = new Journaled(file, empty);
    for (const id of ['a', 'b', 'c']) journal.state.sessions[id] = { id, status: 'open' };
    journal.flush();
    journal.flush();
    (journal.state.sessions.c as Record).status = 'expired';
    journal.flush();
    const lines = readFileSync(`${file}.journal`, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] ?? '')).toEqual({ set: { sessions: { c: { id: 'c', status: 'expired' } } } });
  });

  it('drops a last line torn by a kill, and refuses a broken line before it', () => {
    const file = join(dir, 'torn.json');
    const journal = new Journaled(file, empty);
    journal.state.sessions.a = { id: 'a', status: 'open' };
    journal.flush();
    appendFileSync(`${file}.journal`, '{"set":{"sessions":{"b":{"id":"b","sta');
    expect(Object.keys(new Journaled(file, empty).state.sessions)).toEqual(['a']);
    writeFileSync(`${file}.journal`, '{"set":\n{"meta":{"seq":3}}\n');
    expect(() => new Journaled(file, empty)).toThrow(/line 1 is not JSON/);
  });

  it('keeps everything in memory without a file', () => {
    const journal = new Journaled(undefined, empty);
    journal.state.sessions.a = { id: 'a', status: 'open' };
    journal.flush();
    journal.compact();
    expect(journal.state.sessions.a?.status).toBe('open');
  });
});
