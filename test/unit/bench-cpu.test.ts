import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processCpuMs, startCpuMeter } from '#test/bench/cpu.ts';
import { cpuTable, type Row } from '#test/bench/report.ts';

// The benchmark reports each scenario's CPU per request by process (issue 16: where the ratio goes).

/** Spends `ms` of this process's CPU time (not of the wall clock, which a busy machine stretches). */
const burn = (ms: number) => {
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const until = cpuMs() + ms;
  while (cpuMs() < until);
};

describe('CPU per request in the benchmark', () => {
  it.runIf(existsSync('/proc/self/stat'))('reads a process CPU time from /proc', () => {
    const before = processCpuMs(process.pid) as number;
    burn(200);
    const after = processCpuMs(process.pid) as number;
    // Clock ticks are 10 ms: 200 ms of burning reads as 150 or more.
    expect(after - before).toBeGreaterThanOrEqual(150);
    expect(processCpuMs(2 ** 30)).toBeUndefined();
  });

  it.runIf(existsSync('/proc/self/stat'))('divides each process CPU by the requests', () => {
    const stop = startCpuMeter({ server: process.pid });
    burn(200);
    const used = stop(10);
    // Both this process's meters saw the burn: about 20 ms a request.
    expect(used.server).toBeGreaterThanOrEqual(15);
    expect(used.load).toBeGreaterThanOrEqual(15);
    expect(used.load).toBeLessThan(40);
    expect(used.dynamoDb).toBeUndefined();
  });

  it('tables the runner, the ceiling server and the floor side by side', () => {
    const row = {
      scenario: 'rated item, 7 nights',
      items: 20,
      cpu: { server: 1.37, dynamoDb: 0.96, load: 0.07 },
      ceilingCpu: { server: 0.99, dynamoDb: 0.9, load: 0.07 },
      floorCpu: { dynamoDb: 0.87, load: 0.92 },
    } as Row;
    const lines = cpuTable([row, { ...row, cpu: undefined }]);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      '| rated item, 7 nights | 20 | 1.37 | 0.96 | 0.07 | 0.99 | 0.9 | 0.07 | 0.87 | 0.92 |',
    );
    expect(cpuTable([{ ...row, cpu: undefined }])).toEqual([]);
  });
});
