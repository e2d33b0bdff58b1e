// Draws the app and tray icons as PNGs (no image tools needed): a check mark over a signature line.
// Run `node build/make-icons.mjs` after changing the drawing; the PNGs are committed.
//   icon.png               512×512 app icon (electron-builder derives .icns/.ico from it)
//   tray.png, tray@2x.png  16/32 px… for Windows and Linux trays (colour)
//   trayTemplate*.png      macOS menu bar (black + alpha; macOS tints it)
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const here = new URL('./', import.meta.url);
const GREEN = [31, 111, 92];
const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];

// ---- geometry (unit square, y down) -------------------------------------------------------------

function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function roundedRectDistance(px, py, half, radius) {
  const qx = Math.abs(px - 0.5) - (half - radius);
  const qy = Math.abs(py - 0.5) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

const CHECK = [
  [0.27, 0.5, 0.43, 0.65],
  [0.43, 0.65, 0.74, 0.32],
];

function inCheck(x, y, width) {
  return CHECK.some(([ax, ay, bx, by]) => segmentDistance(x, y, ax, ay, bx, by) <= width);
}

function inSignatureLine(x, y, width) {
  return segmentDistance(x, y, 0.27, 0.78, 0.73, 0.78) <= width;
}

// ---- shapes: each returns [r, g, b, a] or undefined for a unit-square point ---------------------

const appIcon = (x, y) => {
  if (roundedRectDistance(x, y, 0.44, 0.1) > 0) return undefined;
  if (inCheck(x, y, 0.055) || inSignatureLine(x, y, 0.022)) return [...WHITE, 255];
  return [...GREEN, 255];
};

const trayIcon = (x, y) => {
  if (Math.hypot(x - 0.5, y - 0.5) > 0.47) return undefined;
  if (inCheck(x, y, 0.085)) return [...WHITE, 255];
  return [...GREEN, 255];
};

const trayTemplate = (x, y) => {
  const r = Math.hypot(x - 0.5, y - 0.5);
  if ((r <= 0.47 && r >= 0.38) || inCheck(x, y, 0.08)) return [...BLACK, 255];
  return undefined;
};

// ---- raster + PNG ------------------------------------------------------------------------------

function render(size, shape, samples = 4) {
  const pixels = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const c = shape((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size);
          if (!c) continue;
          const alpha = c[3] / 255;
          r += c[0] * alpha;
          g += c[1] * alpha;
          b += c[2] * alpha;
          a += alpha;
        }
      }
      const i = (py * size + px) * 4;
      const n = samples * samples;
      pixels[i] = a ? Math.round(r / a) : 0;
      pixels[i + 1] = a ? Math.round(g / a) : 0;
      pixels[i + 2] = a ? Math.round(b / a) : 0;
      pixels[i + 3] = Math.round((a / n) * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const outputs = [
  ['icon.png', 512, appIcon],
  ['tray.png', 16, trayIcon],
  ['tray@2x.png', 32, trayIcon],
  ['trayTemplate.png', 16, trayTemplate],
  ['trayTemplate@2x.png', 32, trayTemplate],
];
for (const [name, size, shape] of outputs) {
  writeFileSync(new URL(name, here), encodePng(size, render(size, shape)));
  process.stdout.write(`build/${name} ${size}×${size}\n`);
}
