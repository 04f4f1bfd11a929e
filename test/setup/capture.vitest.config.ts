// Runs only the request-frame capture (test/setup/capture-frames.ts), never part of CI:
//   npm run build && npx vitest run --config test/setup/capture.vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/setup/capture-frames.ts'], testTimeout: 600_000, hookTimeout: 300_000, pool: 'forks' },
});
