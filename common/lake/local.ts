// Local-disk object store. put-if-absent = write a temp file, fsync, then link(2)
// it to the final name: link fails with EEXIST if the name exists, atomically.
import { promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ObjectInfo, ObjectStore } from './store.js';

export class LocalStore implements ObjectStore {
  readonly url: string;
  constructor(readonly root: string) {
    this.url = `file://${root}`;
  }

  private p(key: string) {
    return path.join(this.root, ...key.split('/'));
  }

  private async writeTemp(key: string, body: Uint8Array): Promise<string> {
    const final = this.p(key);
    await fs.mkdir(path.dirname(final), { recursive: true });
    const tmp = path.join(path.dirname(final), `.tmp-${randomUUID()}`);
    const fh = await fs.open(tmp, 'wx');
    try {
      await fh.writeFile(body);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  }

  private async syncDir(dir: string) {
    try {
      const fh = await fs.open(dir, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch {
      /* best effort */
    }
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    const tmp = await this.writeTemp(key, body);
    await fs.rename(tmp, this.p(key));
    await this.syncDir(path.dirname(this.p(key)));
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<boolean> {
    const tmp = await this.writeTemp(key, body);
    try {
      await fs.link(tmp, this.p(key));
      await this.syncDir(path.dirname(this.p(key)));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    } finally {
      await fs.unlink(tmp).catch(() => {});
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.p(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    const out: ObjectInfo[] = [];
    const walk = async (dir: string, rel: string) => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
      for (const e of entries) {
        if (e.name.startsWith('.tmp-')) continue;
        const k = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), k);
        else if (e.isFile()) {
          if (!k.startsWith(prefix)) continue;
          if (startAfter !== undefined && k <= startAfter) continue;
          try {
            const st = await fs.stat(path.join(dir, e.name));
            out.push({ key: k, size: st.size, lastModified: st.mtimeMs });
          } catch {
            /* deleted meanwhile */
          }
        }
      }
    };
    // walk from the deepest directory fully contained in the prefix
    const slash = prefix.lastIndexOf('/');
    const base = slash >= 0 ? prefix.slice(0, slash) : '';
    await walk(base ? this.p(base) : this.root, base);
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out;
  }

  async delete(key: string): Promise<void> {
    await fs.unlink(this.p(key)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  async close(): Promise<void> {}
}
