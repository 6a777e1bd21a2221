import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Imports point one way, top to bottom (issues 11 and 42): infra (which composes the functions), functions,
// lib/http (the API's request pipeline), lib/runtime (logger, tracing, metrics, environment), then the
// contexts, each below the ones that use it, then lib/config (the tenant file and its stored model), then
// lib/kernel (dates, money, storage, transactions, outbound HTTP); lib/client (the typed API client for
// widgets and tests) is a leaf too. Contexts on one level never import each other (the cycle test says so).
const LEVEL: Record<string, number> = {
  infra: -1,
  functions: 0,
  http: 1,
  runtime: 2,
  channels: 3,
  housekeeping: 3,
  bookings: 4,
  sessions: 5,
  catalog: 6,
  access: 7,
  slip: 7,
  stock: 7,
  limits: 7,
  webhooks: 7,
  payments: 7,
  config: 8,
  kernel: 9,
  client: 9,
};

/** The contexts: a folder of lib/ that others (contexts, the pipeline, functions, CLIs) reach only through its entry. */
const CONTEXTS = [
  'access',
  'bookings',
  'catalog',
  'channels',
  'config',
  'housekeeping',
  'limits',
  'payments',
  'sessions',
  'slip',
  'stock',
  'webhooks',
];

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

/** The context a file belongs to, if any. */
const contextOf = (file: string): string | undefined => {
  const [top = '', second = ''] = relative(root, file).split('/');
  return top === 'lib' && CONTEXTS.includes(second) ? second : undefined;
};

/**
 * Every import of lib/, functions/ and infra/ that reaches into a context other than its own anywhere but
 * its entry (`lib/<context>/index.ts`), as `from -> to`, over a graph of each file's imported files.
 */
function entryBypasses(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const context = contextOf(target);
        return context && context !== contextOf(file) && target !== join(root, 'lib', context, 'index.ts');
      })
      .map((target) => `${relative(root, file)} -> ${relative(root, target)}`),
  );
}

// The widget (issue 14) runs in the browser: its source imports only itself and lib/client (the typed
// client), and whatever those import stays inside them, so no service code reaches the page. Its build
// script (widget/build.ts) imports esbuild, which must never enter a Lambda bundle: lib/ and functions/
// import from widget/ only widget/files.ts, whose constants import nothing but Node built-ins.
const WIDGET_SOURCE = join(root, 'widget', 'src');
const WIDGET_CONSTANTS = join(root, 'widget', 'files.ts');

/** What a file imports: repository files (resolved, aliases included) and packages, as `{spec, target}`. */
const importsOf = (file: string): { spec: string; target?: string }[] =>
  [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => {
    const spec = match[1] ?? '';
    const alias = /^#(lib|functions|infra|test|widget)\/(.*)$/.exec(spec);
    if (alias) return { spec, target: join(root, alias[1] ?? '', alias[2] ?? '') };
    return spec.startsWith('.') ? { spec, target: resolve(dirname(file), spec) } : { spec };
  });

/** Every repository file and package a file reaches through its imports, itself included. */
function reach(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const { spec, target } of importsOf(file)) {
      if (target) pending.push(target);
      else packages.add(spec);
    }
  }
  return { files, packages };
}

const inside = (file: string, dir: string): boolean => !relative(dir, file).startsWith('..');

/** Each file's imports of the others among `files` (type imports count: they tie files together too). */
const importGraph = (files: string[]): Map<string, string[]> => {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      importsOf(file).flatMap(({ target }) => (target && known.has(target) ? [target] : [])),
    ]),
  );
};

/** The cycles of an import graph, each as the sorted files of one strongly connected component (Tarjan). */
function importCycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || edges.get(file)?.includes(file))
      cycles.push(component.map((each) => relative(root, each)).sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the import graph', () => {
  it('has no upward arrow between the layers', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('reaches a context from outside only through its entry', () => {
    const files = ['lib', 'functions', 'infra'].flatMap((dir) => sources(join(root, dir)));
    expect(entryBypasses(importGraph(files))).toEqual([]);
  });

  it('finds a context reached past its entry, planted in that graph', () => {
    const files = ['lib', 'functions', 'infra'].flatMap((dir) => sources(join(root, dir)));
    const graph = importGraph(files);
    const sync = join(root, 'lib', 'channels', 'sync.ts');
    // The shortcut a channel's sync would take to read a booking: the bookings repository itself.
    graph.set(sync, [...(graph.get(sync) ?? []), join(root, 'lib', 'bookings', 'repository.ts')]);
    expect(entryBypasses(graph)).toEqual(['lib/channels/sync.ts -> lib/bookings/repository.ts']);
  });

  it('gives every context an entry', () => {
    expect(CONTEXTS.filter((context) => !existsSync(join(root, 'lib', context, 'index.ts')))).toEqual([]);
  });

  it('has no cycle among the files of lib/ and functions/, type imports included', () => {
    const files = ['lib', 'functions'].flatMap((dir) => sources(join(root, dir)));
    expect(importCycles(importGraph(files))).toEqual([]);
  });

  it('finds a cycle planted in that graph', () => {
    const files = ['lib', 'functions'].flatMap((dir) => sources(join(root, dir)));
    const graph = importGraph(files);
    const [outbox, deliveries] = ['outbox.ts', 'delivery-repository.ts'].map((name) =>
      join(root, 'lib', 'webhooks', name),
    ) as [string, string];
    // The loop the outbox module broke: the outbox reading a type back from a repository that imports it.
    graph.set(outbox, [...(graph.get(outbox) ?? []), deliveries]);
    expect(importCycles(graph)).toEqual([['lib/webhooks/delivery-repository.ts', 'lib/webhooks/outbox.ts']]);
  });

  it('knows every folder of lib', () => {
    const folders = readdirSync(join(root, 'lib')).filter((name) =>
      statSync(join(root, 'lib', name)).isDirectory(),
    );
    expect(folders.filter((name) => LEVEL[name] === undefined)).toEqual([]);
  });

  it('keeps the widget to its own source and the typed client, with no Node built-in', () => {
    const reached = sources(WIDGET_SOURCE).map((file) => reach(file));
    const files = new Set(reached.flatMap((each) => [...each.files]));
    const packages = new Set(reached.flatMap((each) => [...each.packages]));
    expect(files.size).toBeGreaterThan(0);
    const outside = [...files].filter(
      (file) => !inside(file, WIDGET_SOURCE) && !inside(file, join(root, 'lib', 'client')),
    );
    expect(outside.map((file) => relative(root, file))).toEqual([]);
    expect([...packages].filter((name) => name.startsWith('node:'))).toEqual([]);
  });

  // Issue 29: the views and controllers ask for narrow host interfaces, so the element alone knows them all.
  it("has no circle among the widget's files", () => {
    expect(importCycles(importGraph(sources(WIDGET_SOURCE)))).toEqual([]);
  });

  it('lets only the entry import the element class', () => {
    const element = join(WIDGET_SOURCE, 'booking-widget.ts');
    const importers = sources(WIDGET_SOURCE).filter((file) =>
      importsOf(file).some(({ target }) => target === element),
    );
    expect(importers.map((file) => relative(root, file))).toEqual(['widget/src/index.ts']);
  });

  it('imports from widget/ nothing but its constants in lib/ and functions/', () => {
    const found = ['lib', 'functions']
      .flatMap((dir) => sources(join(root, dir)))
      .flatMap((file) =>
        importsOf(file)
          .filter(
            ({ target }) => target && inside(target, join(root, 'widget')) && target !== WIDGET_CONSTANTS,
          )
          .map(({ spec }) => `${relative(root, file)} -> ${spec}`),
      );
    expect(found).toEqual([]);
    expect(importsOf(WIDGET_CONSTANTS).filter(({ spec }) => !spec.startsWith('node:'))).toEqual([]);
  });

  it('never lets esbuild or the widget build into a Lambda bundle', () => {
    for (const handler of readdirSync(join(root, 'functions'))
      .map((group) => join(root, 'functions', group, 'handler.ts'))
      .filter((file) => existsSync(file))) {
      const { files, packages } = reach(handler);
      expect(
        [...packages].filter((name) => name === 'esbuild' || name.startsWith('esbuild/')),
        handler,
      ).toEqual([]);
      expect(files.has(join(root, 'widget', 'build.ts')), handler).toBe(false);
    }
  });
});

describe('the X-Ray SDK', () => {
  // Loading it enables an async hook (cls-hooked) that costs every promise; only the Lambda entries,
  // which trace, may load it. A fresh process, since the hook and its namespace are process-wide.
  const loadsXRay = (modules: string[]) =>
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `${modules.map((module) => `await import('${module}');`).join(' ')}
         process.stdout.write(String(Boolean(process.namespaces?.AWSXRay)));`,
      ],
      { encoding: 'utf8', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
    );

  it('is never loaded by what npm start and the tests run', () => {
    expect(
      loadsXRay(['#functions/index.ts', '#functions/sweeper/job.ts', '#functions/webhooks/job.ts']),
    ).toBe('false');
  });

  it('is loaded by a Lambda entry, which traces', () => {
    expect(loadsXRay(['#lib/runtime/tracing.ts'])).toBe('true');
  });
});
