import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWidget,
  MANAGE_MAX_GZIP_BYTES,
  WIDGET_MAX_GZIP_BYTES,
  type WidgetBuild,
} from '#widget/build.ts';
import { MANAGE_FILE } from '#widget/files.ts';

const outdir = mkdtempSync(join(tmpdir(), 'widget-bundle-'));
let built: WidgetBuild;
let code: string;
beforeAll(async () => {
  built = await buildWidget(outdir);
  code = readFileSync(built.file, 'utf8');
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the widget bundle', () => {
  it('is one ES module within the size budget, gzipped', () => {
    expect(built.gzipBytes).toBeLessThanOrEqual(WIDGET_MAX_GZIP_BYTES);
    expect(code).toContain('customElements');
    // No import of another file: one request loads it all.
    expect(code).not.toMatch(/\bimport\s*\(|\bfrom\s*["']/);
  });

  it('names no host of its own: it calls only the `api` it is given (and the images that returns)', () => {
    // ical-generator's errors name its documentation ("See https://sebbo2002.github.io/…"): text for a
    // developer, never a request. Nothing else may name a host.
    const docs = /See https:\/\/sebbo2002\.github\.io\/ical-generator\/[^\s"'`]*/g;
    expect(code.replace(docs, '').match(/\b(?:https?:)?\/\/[a-z0-9-]+\.[a-z0-9.-]+/gi) ?? []).toEqual([]);
  });

  it("builds the guest's page script (/manage) beside it: one module within its own budget, naming no host", () => {
    const manage = readFileSync(join(outdir, MANAGE_FILE), 'utf8');
    expect(built.names).toContain(MANAGE_FILE);
    expect(built.manageGzipBytes).toBeLessThanOrEqual(MANAGE_MAX_GZIP_BYTES);
    expect(manage).not.toMatch(/\bimport\s*\(|\bfrom\s*["']/);
    // Nothing of Lit or the widget: the page loads this file alone.
    expect(manage).not.toContain('customElements');
    expect(manage.match(/\b(?:https?:)?\/\/[a-z0-9-]+\.[a-z0-9.-]+/gi) ?? []).toEqual([]);
  });
});
