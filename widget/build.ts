import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { DEMO_IMAGES, DEMO_IMAGES_SOURCE, MANAGE_FILE, WIDGET_DIST, WIDGET_FILE } from './files.ts';

export { MANAGE_MAX_GZIP_BYTES, WIDGET_DIST, WIDGET_FILE, WIDGET_MAX_GZIP_BYTES } from './files.ts';

/** What a build wrote: the file and its size as sent (gzipped) and as parsed. */
export interface WidgetBuild {
  file: string;
  /** The names of every file written into the folder: the widget and the demo pictures. */
  names: string[];
  bytes: number;
  gzipBytes: number;
  /** The guest's page script (`/manage`), as sent gzipped. */
  manageGzipBytes: number;
}

/**
 * Bundles the widget (Lit and the typed client included) into one minified ES module, and puts the demo
 * tenant's pictures beside it (served with it under `/widget/`).
 */
export async function buildWidget(outdir: string = WIDGET_DIST): Promise<WidgetBuild> {
  mkdirSync(outdir, { recursive: true });
  const file = join(outdir, WIDGET_FILE);
  const options: BuildOptions = {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  };
  const manageFile = join(outdir, MANAGE_FILE);
  await Promise.all([
    build({
      ...options,
      entryPoints: [fileURLToPath(new URL('./src/index.ts', import.meta.url))],
      outfile: file,
    }),
    build({
      ...options,
      entryPoints: [fileURLToPath(new URL('./src/manage/index.ts', import.meta.url))],
      outfile: manageFile,
    }),
  ]);
  const pictures = DEMO_IMAGES.flatMap(({ file: picture, file2x }) => [picture, file2x]);
  for (const name of pictures) copyFileSync(join(DEMO_IMAGES_SOURCE, name), join(outdir, name));
  const code = readFileSync(file);
  return {
    file,
    names: [WIDGET_FILE, MANAGE_FILE, ...pictures],
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    manageGzipBytes: gzipSync(readFileSync(manageFile), { level: 9 }).length,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildWidget(process.argv[2] ?? WIDGET_DIST);
  process.stdout.write(
    `${built.file}: ${(built.bytes / 1024).toFixed(1)} KB, ${(built.gzipBytes / 1024).toFixed(1)} KB gzipped\n`,
  );
}
