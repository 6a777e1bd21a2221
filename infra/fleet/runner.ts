import { spawn } from 'node:child_process';
import type { CommandRunner } from './waves.ts';

/** Where a command's output goes: stdout and stderr, or a test's collectors. */
export interface Output {
  write(text: string): unknown;
}

/**
 * A runner that passes a command's output through line by line, each line prefixed with `[label]`
 * (deploys of one wave run side by side), and answers the exit code (1 when it could not start).
 */
export const makeRunner =
  (stdout: Output = process.stdout, stderr: Output = process.stderr): CommandRunner =>
  (command, args, { cwd, label }) =>
    new Promise((done) => {
      const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      const relay = (to: Output) => {
        let rest = '';
        return {
          data: (chunk: Buffer) => {
            const lines = (rest + chunk.toString()).split('\n');
            rest = lines.pop() ?? '';
            for (const line of lines) to.write(`[${label}] ${line}\n`);
          },
          end: () => {
            if (rest) to.write(`[${label}] ${rest}\n`);
          },
        };
      };
      const out = relay(stdout);
      const err = relay(stderr);
      child.stdout.on('data', out.data);
      child.stderr.on('data', err.data);
      child.on('error', (error) => {
        stderr.write(`[${label}] ${command}: ${error.message}\n`);
        done(1);
      });
      child.on('close', (code) => {
        out.end();
        err.end();
        done(code ?? 1);
      });
    });
