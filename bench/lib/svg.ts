// A tiny dependency-free SVG writer: grouped bar charts, stacked vertically in
// one document. Linear or log10 y axis, value labels on the bars, 'n/a' for
// missing values.

export interface Series {
  name: string;
  color: string;
  values: Array<number | null>;
}

export interface BarChart {
  title: string;
  yLabel: string;
  groups: string[];
  series: Series[];
  log?: boolean;
  /** Label for a value of exactly 0 (which a log axis cannot draw), default '0'. */
  zeroLabel?: string;
  width?: number;
  height?: number;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (x: number): string => (Math.round(x * 10) / 10).toString();

function label(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${num(v / 1e6)}M`;
  if (a >= 1e4) return `${num(v / 1e3)}k`;
  if (a >= 100) return Math.round(v).toString();
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

function niceStep(range: number, ticks: number): number {
  const raw = range / Math.max(1, ticks);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(/\s+/)) {
    if (cur && (cur + ' ' + w).length > max) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines;
}

/** One chart as an SVG <g> fragment placed at y offset `top`; returns [fragment, height]. */
function chart(c: BarChart, top: number, width: number): [string, number] {
  const height = c.height ?? 340;
  const m = { l: 70, r: 16, t: 48, b: 70 };
  const pw = width - m.l - m.r;
  const ph = height - m.t - m.b;
  const vals = c.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v) && (!c.log || v > 0));
  const out: string[] = [`<g transform="translate(0,${top})">`];
  out.push(`<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(c.title)}</text>`);
  // legend
  let lx = m.l;
  for (const s of c.series) {
    out.push(`<rect x="${lx}" y="30" width="12" height="12" fill="${s.color}"/>`);
    out.push(`<text x="${lx + 16}" y="40" font-size="12">${esc(s.name)}</text>`);
    lx += 24 + s.name.length * 7;
  }
  let y: (v: number) => number;
  const ticks: number[] = [];
  if (c.log) {
    const lo = Math.floor(Math.log10(Math.min(...(vals.length ? vals : [1]))));
    const hi = Math.ceil(Math.log10(Math.max(...(vals.length ? vals : [10]))));
    const top10 = hi === lo ? hi + 1 : hi;
    y = (v) => m.t + ph - ((Math.log10(v) - lo) / (top10 - lo)) * ph;
    for (let e = lo; e <= top10; e++) ticks.push(10 ** e);
  } else {
    const max = Math.max(...(vals.length ? vals : [1])) * 1.12;
    const step = niceStep(max, 5);
    const ymax = Math.ceil(max / step) * step;
    y = (v) => m.t + ph - (v / ymax) * ph;
    for (let t = 0; t <= ymax + step / 2; t += step) ticks.push(t);
  }
  for (const t of ticks) {
    const ty = y(t);
    out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${num(ty)}" y2="${num(ty)}" stroke="#ddd"/>`);
    out.push(`<text x="${m.l - 6}" y="${num(ty + 4)}" text-anchor="end" font-size="11" fill="#444">${label(t)}</text>`);
  }
  out.push(`<text transform="translate(16,${m.t + ph / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="#444">${esc(c.yLabel)}${c.log ? ' (log scale)' : ''}</text>`);
  const gw = pw / Math.max(1, c.groups.length);
  const bw = Math.min(48, (gw * 0.8) / Math.max(1, c.series.length));
  c.groups.forEach((g, gi) => {
    const gx = m.l + gi * gw + (gw - bw * c.series.length) / 2;
    c.series.forEach((s, si) => {
      const v = s.values[gi];
      const x = gx + si * bw;
      if (v === null || v === undefined || !Number.isFinite(v) || (c.log && v <= 0)) {
        const what = v === 0 ? (c.zeroLabel ?? '0') : 'n/a';
        out.push(`<text x="${num(x + bw / 2)}" y="${m.t + ph - 4}" text-anchor="middle" font-size="9" fill="${s.color}">${esc(what)}</text>`);
        return;
      }
      const by = y(v);
      out.push(`<rect x="${num(x + 1)}" y="${num(by)}" width="${num(bw - 2)}" height="${num(m.t + ph - by)}" fill="${s.color}"><title>${esc(`${s.name} — ${g}: ${v}`)}</title></rect>`);
      out.push(`<text x="${num(x + bw / 2)}" y="${num(by - 3)}" text-anchor="middle" font-size="9" fill="#222">${label(v)}</text>`);
    });
    wrap(g, Math.max(8, Math.floor(gw / 6.5))).forEach((line, li) => {
      out.push(`<text x="${num(m.l + gi * gw + gw / 2)}" y="${m.t + ph + 16 + li * 13}" text-anchor="middle" font-size="11">${esc(line)}</text>`);
    });
  });
  out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${m.t + ph}" y2="${m.t + ph}" stroke="#333"/>`);
  out.push('</g>');
  return [out.join('\n'), height];
}

/** An SVG document with the charts stacked top to bottom. */
export function svgDocument(charts: BarChart[], width = 900, footnote?: string): string {
  const parts: string[] = [];
  let top = 0;
  for (const c of charts) {
    const [frag, h] = chart(c, top, c.width ?? width);
    parts.push(frag);
    top += h;
  }
  if (footnote) {
    for (const line of wrap(footnote, Math.floor(width / 5.6))) {
      parts.push(`<text x="8" y="${top + 14}" font-size="10" fill="#666">${esc(line)}</text>`);
      top += 14;
    }
    top += 8;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top}" viewBox="0 0 ${width} ${top}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
