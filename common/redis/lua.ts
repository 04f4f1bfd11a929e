// Loads Lua scripts kept as .lua files beside the module that runs them. The
// build (tsc) emits only JavaScript, so a module running from dist/ reads the
// scripts from the same folder of the source tree (the image copies them there).
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The text of `<dir>/<name>.lua`; `dir` is a folder URL such as `new URL('./lua/', import.meta.url)`. */
export function luaSource(dir: URL, name: string): string {
  const here = fileURLToPath(dir);
  const dirs = [here];
  const dist = here.lastIndexOf(`${sep}dist${sep}`);
  if (dist >= 0) dirs.push(here.slice(0, dist) + here.slice(dist + `${sep}dist`.length));
  for (const d of dirs) {
    try {
      return readFileSync(`${d.endsWith(sep) ? d : d + sep}${name}.lua`, 'utf8');
    } catch {
      /* try the next location */
    }
  }
  throw new Error(`lua script ${name}.lua not found in ${dirs.join(' or ')}`);
}
