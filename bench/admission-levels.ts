/**
 * `npx tsx bench/admission-levels.ts [--redis redis://127.0.0.1:6379] [--runs 20000]`: what a
 * request's admission costs with one level (the key) against three (key, team, organisation) and
 * four (with an end user), each level with every limit and money budget a key can have.
 *
 * - Memory meter: CPU time per reserve + settle (`process.cpuUsage`, user + system), after a
 *   warm-up; the median of five rounds, since the shared machine moves single rounds by 10–30 %.
 * - Redis meter (with `--redis`): the server's own CPU per script call, from `INFO commandstats`
 *   (`usec_per_call` of `evalsha`), reset before each case: what the Lua does, not the network.
 *
 * Run it under `valgrind --tool=callgrind --instr-atstart=no` and `callgrind_control -i on`
 * around a round for instruction counts (see bench/instructions.ts); the ratio is what to read.
 */
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { createMemoryUsageMeter, type UsageMeter } from '../src/index'
import { createRedisUsageMeter, type RedisScriptClient } from '../src/redis/index'
import type { KeyLimits } from '../src/usage/key-limits'
import type { MeteredSubject, UsageRecord } from '../src/usage/usage-meter'

const { values: flags } = parseArgs({
  options: { redis: { type: 'string' }, runs: { type: 'string', default: '20000' } },
})
const runs = Number(flags.runs)

const limits: KeyLimits = {
  requestsPerMinute: 1e9,
  inputTokensPerMinute: 1e9,
  outputTokensPerMinute: 1e9,
  concurrency: 1e6,
  tokensPerDay: 1e12,
  tokensPerMonth: 1e12,
}
const budgets = [
  { usd: 1e6, per: 'day' as const },
  { usd: 1e6, per: 'month' as const },
]
const cases: { name: string; subjects: MeteredSubject[] }[] = [
  { name: 'key only (1 level)', subjects: [] },
  {
    name: 'key, team, organisation (3 levels)',
    subjects: [
      { kind: 'team', id: 'data', quotaTokens: 1e12, limits, budgets },
      { kind: 'organisation', id: 'default', budgets },
    ],
  },
  {
    name: 'key, end user, team, organisation (4 levels)',
    subjects: [
      { kind: 'end-user', id: 'alice', keyId: 'bench', limits, budgets },
      { kind: 'team', id: 'data', quotaTokens: 1e12, limits, budgets },
      { kind: 'organisation', id: 'default', budgets },
    ],
  },
]

let sequence = 0
async function admitAndSettle(meter: UsageMeter, subjects: MeteredSubject[]): Promise<void> {
  sequence += 1
  const requestId = `bench_${sequence}`
  const result = await meter.reserve({
    requestId,
    keyId: 'bench',
    quotaTokens: 1e12,
    limits,
    budgets,
    subjects,
    estimatedTokens: 300,
    estimate: { inputTokens: 100, outputTokens: 200, costNano: 1000 },
  })
  if (!result.granted) throw new Error(`refused: ${JSON.stringify(result)}`)
  const usage = {
    inputTokens: 100,
    outputTokens: 150,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens: 250,
  }
  const record: UsageRecord = {
    requestId,
    keyId: 'bench',
    groupId: 'g',
    providerId: 'p',
    model: 'm',
    upstreamModel: 'm',
    route: 'chat.completions',
    stream: false,
    usage,
    cost: { nanoUsd: 900, price: { input: 1, output: 1 } } as never,
    outcome: 'ok',
    status: 200,
    startedAt: 0,
    durationMs: 1,
  }
  await meter.settle(result.reservation, record)
}

async function cpuPerRequest(meter: UsageMeter, subjects: MeteredSubject[], count: number) {
  const start = process.cpuUsage()
  for (let index = 0; index < count; index += 1) await admitAndSettle(meter, subjects)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / count
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

console.log(`memory meter, reserve + settle, ${runs} per round, median of 5 rounds:`)
for (const { name, subjects } of cases) {
  const meter = createMemoryUsageMeter()
  await cpuPerRequest(meter, subjects, Math.min(runs, 5000))
  const rounds: number[] = []
  for (let round = 0; round < 5; round += 1) rounds.push(await cpuPerRequest(meter, subjects, runs))
  console.log(`  ${name}: ${median(rounds).toFixed(2)} µs CPU per request`)
}

if (flags.redis !== undefined) {
  const redis = createClient({ url: flags.redis })
  await redis.connect()
  const client: RedisScriptClient = {
    eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
    evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
  }
  const prefix = `bench_levels_${process.pid}`
  const redisRuns = Math.min(runs, 3000)
  console.log(
    `redis meter, ${redisRuns} reserve + settle, server CPU per script call (INFO commandstats):`,
  )
  for (const { name, subjects } of cases) {
    const meter = createRedisUsageMeter({ client, prefix })
    await cpuPerRequest(meter, subjects, 200)
    await redis.sendCommand(['CONFIG', 'RESETSTAT'])
    const client_ = await cpuPerRequest(meter, subjects, redisRuns)
    const stats = await redis.sendCommand(['INFO', 'commandstats'])
    const line = String(stats)
      .split('\n')
      .find((row) => row.startsWith('cmdstat_evalsha:'))
    const perCall = /usec_per_call=([\d.]+)/.exec(line ?? '')?.[1]
    console.log(
      `  ${name}: evalsha ${perCall ?? '?'} µs server CPU per call; client ${client_.toFixed(1)} µs CPU per request`,
    )
  }
  const keys = await redis.keys(`${prefix}*`)
  for (let index = 0; index < keys.length; index += 500) {
    await redis.del(keys.slice(index, index + 500))
  }
  await redis.quit()
}
