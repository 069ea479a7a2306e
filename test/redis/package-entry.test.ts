import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { connectRedis, redisUrl, uniquePrefix } from '../helpers/redis'
import { repoRoot } from '../helpers/spawn-runtime'

/** What a user's program prints, importing the built package by name (ESM or CJS). */
function runAsUser(source: string, type: 'module' | 'commonjs'): string {
  return execFileSync(process.execPath, ['--input-type', type, '-e', source], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, TEST_REDIS_URL: redisUrl },
  })
}

const program = (prefix: string) => `
  const redis = await createClient({ url: process.env.TEST_REDIS_URL }).connect()
  const meter = createRedisUsageMeter({
    prefix: ${JSON.stringify(prefix)},
    client: {
      eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
      evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
    },
  })
  const result = await meter.reserve({
    requestId: 'r1', keyId: 'k', quotaTokens: undefined, limits: { requestsPerMinute: 3 },
    estimatedTokens: 1, estimate: { inputTokens: 1, outputTokens: 0 },
  })
  await meter.release(result.reservation)
  for await (const keys of redis.scanIterator({ MATCH: ${JSON.stringify(`${prefix}:*`)} })) {
    if (keys.length > 0) await redis.del(keys)
  }
  await redis.close()
  console.log(JSON.stringify(result.limits))
`

// Starts the machine's Redis if it is down; the user programs connect on their own.
beforeAll(async () => (await connectRedis()).destroy())

describe('the model-gateway/redis entry point', () => {
  it('works as users import it, ESM and CommonJS, with the documented adapter for node-redis', () => {
    const esm = runAsUser(
      `import { createRedisUsageMeter } from 'model-gateway/redis'\nimport { createClient } from 'redis'\n${program(uniquePrefix('esm'))}`,
      'module',
    )
    const cjs = runAsUser(
      `const { createRedisUsageMeter } = require('model-gateway/redis')\nconst { createClient } = require('redis')\n;(async () => {${program(uniquePrefix('cjs'))}})()`,
      'commonjs',
    )
    for (const output of [esm, cjs]) {
      expect(JSON.parse(output)).toEqual([
        { name: 'requestsPerMinute', limit: 3, remaining: 2, resetInMs: 20_000 },
      ])
    }
  })

  it('imports no driver and no Node built-in, and the core imports neither', () => {
    for (const file of ['dist/redis/index.js', 'dist/redis/index.cjs', 'dist/index.js']) {
      const code = readFileSync(join(repoRoot, file), 'utf8')
      expect(code, file).not.toMatch(
        /from ["']node:|require\(["']node:|from ["']redis["']|require\(["']redis["']\)/,
      )
    }
  })
})
