import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { DEMO_IMAGE_SIZE, DEMO_IMAGES } from '#widget/files.ts';

// Usage: npx tsx tools/demo-images.ts
// Draws the demo tenant's pictures (flat illustrations, one per item) and writes them as WebP at 1× and
// 2× into widget/images/, where the widget build copies them from. Chromium encodes the WebP (canvas
// `toDataURL('image/webp')`), so nothing beyond the browser the tests already use is needed. Run it again
// only to change the pictures; the files are committed.

const OUT = fileURLToPath(new URL('../widget/images/', import.meta.url));

/** The lake, hills and pines every picture stands in, at `hour` (dawn is warmer). */
const scenery = (dawn = false) => `
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${dawn ? '#f6b27a' : '#8ec5e8'}"/>
      <stop offset="1" stop-color="${dawn ? '#fde3c2' : '#e6f2f7'}"/>
    </linearGradient>
    <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${dawn ? '#6f8fa8' : '#3f7fa6'}"/>
      <stop offset="1" stop-color="#24506b"/>
    </linearGradient>
  </defs>
  <rect width="480" height="360" fill="url(#sky)"/>
  <circle cx="${dawn ? 120 : 390}" cy="${dawn ? 205 : 70}" r="${dawn ? 38 : 26}" fill="${dawn ? '#fff1c9' : '#fffbe8'}"/>
  <path d="M0 200 Q80 140 170 185 T330 170 T480 180 V240 H0Z" fill="#5d8a6e"/>
  <path d="M0 215 Q120 175 240 205 T480 200 V240 H0Z" fill="#3f6b52"/>
  ${[20, 55, 400, 440, 465]
    .map((x, i) => `<path d="M${x} ${232 - i * 3} l14 -52 l14 52z" fill="#24452f"/>`)
    .join('')}
  <rect y="236" width="480" height="124" fill="url(#lake)"/>
  <path d="M30 270 h60 M150 300 h80 M300 260 h50 M360 320 h70" stroke="#ffffff" stroke-opacity=".35" stroke-width="3" stroke-linecap="round"/>`;

/** A cabin on the shore, with a lit window and a dock. */
const cabin = (x: number, y: number, scale = 1) => `
  <g transform="translate(${x} ${y}) scale(${scale})">
    <rect x="0" y="40" width="130" height="80" fill="#8a4b2a"/>
    <path d="M-12 44 L65 -8 L142 44Z" fill="#4a2a1c"/>
    <rect x="20" y="62" width="28" height="24" fill="#ffd77a"/>
    <rect x="84" y="70" width="26" height="50" fill="#3a2015"/>
    <path d="M0 60 h130 M0 80 h130 M0 100 h130" stroke="#6e3a20" stroke-width="2"/>
    <rect x="95" y="-2" width="12" height="30" fill="#5b5b5b"/>
  </g>`;

/** A boat seen from the side: a kayak, a canoe or a paddleboard by its shape. */
const boat = (x: number, y: number, colour: string, length: number, paddler: boolean) => `
  <g transform="translate(${x} ${y})">
    <path d="M0 0 Q${length / 2} 26 ${length} 0 Q${length / 2} 8 0 0Z" fill="${colour}"/>
    ${
      paddler
        ? `<circle cx="${length / 2}" cy="-34" r="9" fill="#f1c27d"/>
           <rect x="${length / 2 - 9}" y="-25" width="18" height="26" rx="6" fill="#e4572e"/>
           <path d="M${length / 2 - 40} -40 L${length / 2 + 40} 10" stroke="#3b2a1a" stroke-width="4" stroke-linecap="round"/>`
        : ''
    }
  </g>`;

const PICTURES: Record<string, string> = {
  cabin: `${scenery()}${cabin(170, 110)}<rect x="300" y="226" width="110" height="10" fill="#6e4b2a"/>`,
  loft: `${scenery()}
    <rect x="150" y="120" width="190" height="120" fill="#c9b48a"/>
    <path d="M135 124 L245 60 L355 124Z" fill="#5b3b2a"/>
    <rect x="175" y="190" width="140" height="50" fill="#3b2a1a"/>
    <rect x="200" y="140" width="40" height="30" fill="#ffd77a"/><rect x="250" y="140" width="40" height="30" fill="#ffd77a"/>
    <path d="M175 240 V200 H315 V240" fill="none" stroke="#c9b48a" stroke-width="4"/>`,
  kayak: `${scenery()}${boat(120, 290, '#f2b632', 240, true)}`,
  bike: `${scenery()}
    <rect y="300" width="480" height="60" fill="#8a6a45"/>
    <g stroke="#1d2a24" stroke-width="7" fill="none">
      <circle cx="170" cy="270" r="46"/><circle cx="320" cy="270" r="46"/>
      <path d="M170 270 L225 200 H300 L320 270 M225 200 L250 270 H170 M300 200 L290 180 H270 M225 200 L215 185"/>
    </g>
    <path d="M200 185 h30" stroke="#e4572e" stroke-width="9" stroke-linecap="round"/>`,
  paddleboard: `${scenery()}
    <path d="M110 300 Q240 318 370 300 Q240 292 110 300Z" fill="#2e86ab"/>
    <circle cx="240" cy="196" r="11" fill="#f1c27d"/>
    <rect x="229" y="207" width="22" height="48" rx="7" fill="#1f6f54"/>
    <path d="M233 255 L226 298 M247 255 L254 298" stroke="#1d2a24" stroke-width="7" stroke-linecap="round"/>
    <path d="M282 170 L262 300" stroke="#3b2a1a" stroke-width="5" stroke-linecap="round"/>`,
  canoe: `${scenery(true)}${boat(80, 285, '#a23b2a', 300, true)}`,
  hamper: `
    <rect width="480" height="360" fill="#f3e6cf"/>
    <rect y="250" width="480" height="110" fill="#c98b4f"/>
    <path d="M130 180 Q240 60 350 180" fill="none" stroke="#8a5a2b" stroke-width="14"/>
    <path d="M110 180 H370 L340 300 H140Z" fill="#b07a3c"/>
    <path d="M120 210 H360 M128 240 H352 M136 270 H344" stroke="#8a5a2b" stroke-width="5"/>
    <circle cx="190" cy="170" r="26" fill="#d94f3d"/><circle cx="245" cy="160" r="24" fill="#f2b632"/>
    <rect x="275" y="128" width="26" height="60" rx="8" fill="#f7f5ef" stroke="#ccc"/>`,
  getaway: `${scenery(true)}${cabin(60, 120, 0.85)}
    <path d="M300 210 H420 L405 236 H315Z" fill="#b07a3c"/>
    <circle cx="340" cy="204" r="12" fill="#d94f3d"/><circle cx="372" cy="202" r="12" fill="#f2b632"/>`,
  slip: `${scenery()}
    <rect x="60" y="228" width="360" height="14" fill="#6e4b2a"/>
    ${[80, 170, 260, 350].map((x) => `<rect x="${x}" y="236" width="10" height="60" fill="#5b3b22"/>`).join('')}
    ${boat(150, 275, '#f7f5ef', 190, false)}`,
};

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage();
  const { width, height } = DEMO_IMAGE_SIZE;
  for (const { name, file, file2x } of DEMO_IMAGES) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 480 360">${PICTURES[name]}</svg>`;
    for (const scale of [1, 2]) {
      const dataUrl = await page.evaluate(
        async ({ svg, w, h }) => {
          const image = new Image(w, h);
          image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = w;
          canvas.height = h;
          canvas.getContext('2d')?.drawImage(image, 0, 0, w, h);
          return canvas.toDataURL('image/webp', 0.8);
        },
        { svg, w: width * scale, h: height * scale },
      );
      const target = join(OUT, scale === 1 ? file : file2x);
      const bytes = Buffer.from(dataUrl.split(',')[1] ?? '', 'base64');
      if (!dataUrl.startsWith('data:image/webp')) throw new Error('Chromium did not encode WebP');
      writeFileSync(target, bytes);
      process.stdout.write(`${target}: ${(bytes.length / 1024).toFixed(1)} KB\n`);
    }
  }
  await browser.close();
}

await main();
