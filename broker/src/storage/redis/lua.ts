// Loads the Lua scripts that live beside this file as .lua (copied to dist by the build).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function luaSource(name: string): string {
  for (const dir of [join(here, 'lua'), join(here, '..', '..', '..', '..', '..', 'broker', 'src', 'storage', 'redis', 'lua')]) {
    try {
      return readFileSync(join(dir, `${name}.lua`), 'utf8');
    } catch {
      /* try the next location */
    }
  }
  throw new Error(`lua script ${name}.lua not found`);
}
