import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Imports point one way, top to bottom (issue 11): infra (which composes the functions), functions,
// then lib/http, lib/auth, lib/domain, then lib/rating, lib/slip, lib/db and lib/webhooks side by side, then
// lib/config, then lib/core; lib/client (the typed API client for widgets and tests) is a leaf too.
const LEVEL: Record<string, number> = {
  infra: -1,
  functions: 0,
  http: 1,
  auth: 2,
  domain: 3,
  rating: 4,
  slip: 4,
  db: 4,
  webhooks: 4,
  config: 5,
  core: 6,
  client: 6,
};

const root = resolve('.');
const layerOf = (file: string): string => {
  const [top = '', second = ''] = relative(root, file).split('/');
  return top === 'lib' ? second : top;
};
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/** Every import between two layers that points upward, as `from -> to`. */
function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of ['lib', 'functions', 'infra'].flatMap((dir) => sources(join(root, dir)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
      const spec = match[1] ?? '';
      const target = spec.startsWith('#lib/')
        ? join(root, 'lib', spec.slice(5))
        : spec.startsWith('#functions/')
          ? join(root, 'functions', spec.slice(11))
          : spec.startsWith('#infra/')
            ? join(root, 'infra', spec.slice(7))
            : spec.startsWith('.')
              ? resolve(dirname(file), spec)
              : undefined;
      if (!target) continue;
      const [from, to] = [layerOf(file), layerOf(target)];
      if (from === to || LEVEL[from] === undefined || LEVEL[to] === undefined) continue;
      if ((LEVEL[to] as number) < (LEVEL[from] as number))
        found.push(`${relative(root, file)} -> ${relative(root, target)}`);
    }
  }
  return found;
}

describe('the import graph', () => {
  it('has no upward arrow between the layers', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('knows every folder of lib', () => {
    const folders = readdirSync(join(root, 'lib')).filter((name) =>
      statSync(join(root, 'lib', name)).isDirectory(),
    );
    expect(folders.filter((name) => LEVEL[name] === undefined)).toEqual([]);
  });
});
