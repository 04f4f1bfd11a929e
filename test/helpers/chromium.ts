// Headless Chromium (Debian's `chromium`, test/setup/install-chromium.sh) for
// pages served by a broker: the DOM after scripts and layout ran, and
// screenshots. Each call is one browser process with its own profile folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from './procs.js';

const BASE = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage', '--hide-scrollbars'];

async function chromium(args: string[]): Promise<string> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-chromium-'));
  try {
    const r = await runCommand('chromium', [...BASE, `--user-data-dir=${profile}`, ...args], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`chromium ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(-2000)}`);
    return r.stdout;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** The serialized DOM of `url` once loaded (virtual time lets the page settle). */
export function dumpDom(url: string, budgetMs = 1000): Promise<string> {
  return chromium(['--dump-dom', `--virtual-time-budget=${budgetMs}`, url]);
}

/** A PNG screenshot of `url` at `width`x`height` into `file`. */
export async function screenshot(url: string, file: string, width = 1200, height = 800): Promise<void> {
  await chromium([`--screenshot=${file}`, `--window-size=${width},${height}`, '--virtual-time-budget=1000', url]);
  if (!fs.existsSync(file)) throw new Error(`chromium wrote no screenshot ${file}`);
}
