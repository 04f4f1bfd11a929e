// Loads the Lua scripts that live beside this file in lua/*.lua (common/redis/lua.ts).
import { luaSource as load } from '../../../common/redis/lua.js';

const dir = new URL('./lua/', import.meta.url);

export function luaSource(name: string): string {
  return load(dir, name);
}
