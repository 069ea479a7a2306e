import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Each file gets its own msw server and gateway; files run in parallel across 2 workers.
    pool: 'forks',
    // Builds dist/ when it is stale: the example tests run the package as users import it.
    globalSetup: ['test/global-setup.ts'],
  },
})
