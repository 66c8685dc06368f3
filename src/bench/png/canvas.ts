// An RGB raster with the two things charts need: filled rectangles and bitmap-font text.
import { ADVANCE, GLYPH_H, glyph } from "./font.js";

export type Rgb = readonly [number, number, number];

export function hexColor(hex: string): Rgb {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

export class Canvas {
  readonly data: Uint8Array;
  constructor(readonly width: number, readonly height: number, background: Rgb = [255, 255, 255]) {
    this.data = new Uint8Array(width * height * 3);
    this.fillRect(0, 0, width, height, background);
  }

  fillRect(x: number, y: number, w: number, h: number, c: Rgb): void {
    const x0 = Math.max(0, Math.round(x)), y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w)), y1 = Math.min(this.height, Math.round(y + h));
    for (let yy = y0; yy < y1; yy++)
      for (let xx = x0; xx < x1; xx++) { const i = (yy * this.width + xx) * 3; this.data[i] = c[0]; this.data[i + 1] = c[1]; this.data[i + 2] = c[2]; }
  }

  /** Width in pixels of `text` at `scale` (pixels per font cell). */
  static textWidth(text: string, scale: number): number {
    return text.length === 0 ? 0 : ([...text].length * ADVANCE - 1) * scale;
  }
  static textHeight(scale: number): number { return GLYPH_H * scale; }

  /** Draws `text` with its top-left corner at (x, y). */
  text(x: number, y: number, text: string, scale: number, c: Rgb): void {
    let cx = Math.round(x);
    for (const ch of text) {
      const g = glyph(ch);
      g.forEach((row, ry) => row.forEach((ink, rx) => { if (ink) this.fillRect(cx + rx * scale, Math.round(y) + ry * scale, scale, scale, c); }));
      cx += ADVANCE * scale;
    }
  }
}
