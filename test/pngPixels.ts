import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

/** An 8-bit RGB or RGBA PNG (what chromium's --screenshot writes) as RGBA pixels. */
export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row by row */
  rgba: Uint8Array;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Decodes a non-interlaced 8-bit truecolour PNG with node's zlib (no image library needed for one check). */
export function readPng(file: string): Pixels {
  const buf = readFileSync(file);
  if (buf.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error(`${file} is not a PNG`);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let off = 8; off < buf.length; ) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) throw new Error(`${file}: only 8-bit RGB(A) non-interlaced PNGs are read (depth ${depth}, colour type ${colour})`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[y * stride + x - channels] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? out[(y - 1) * stride + x - channels] : 0;
      const pred = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c);
      out[y * stride + x] = (line[x] + pred) & 0xff;
    }
  }
  if (channels === 4) return { width, height, rgba: out };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([out[3 * i], out[3 * i + 1], out[3 * i + 2], 255], 4 * i);
  return { width, height, rgba };
}

/** How many pixels are exactly this colour (`#rrggbb`). */
export function countColour(p: Pixels, hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < p.rgba.length; i += 4) if (p.rgba[i] === r && p.rgba[i + 1] === g && p.rgba[i + 2] === b) n++;
  return n;
}

/** How many pixels are not (near) white. */
export function countInk(p: Pixels): number {
  let n = 0;
  for (let i = 0; i < p.rgba.length; i += 4) if (p.rgba[i] < 240 || p.rgba[i + 1] < 240 || p.rgba[i + 2] < 240) n++;
  return n;
}
