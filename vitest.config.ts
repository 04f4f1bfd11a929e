import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/broker/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/archiver/unit/**/*.test.ts', 'test/common/**/*.test.ts', 'test/deploy/**/*.test.ts', 'test/bench/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/interop/**/*.test.ts', 'test/archiver/integration/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
