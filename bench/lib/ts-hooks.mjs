// Module hooks for ts-loader.mjs: resolve `./x.js` to `./x.ts` when only the
// .ts exists (NodeNext-style imports), and transpile .ts to ESM on load.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const relative = (s) => s.startsWith('./') || s.startsWith('../') || s.startsWith('/') || s.startsWith('file:');

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (relative(specifier) && specifier.endsWith('.js')) {
      try {
        return await next(`${specifier.slice(0, -3)}.ts`, context);
      } catch {
        /* fall through to the original error */
      }
    }
    throw err;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const out = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      inlineSourceMap: true,
      inlineSources: false,
      esModuleInterop: true,
    },
  });
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
