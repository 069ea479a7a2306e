// Response cache figures (issue 35): hit vs miss latency, JSON and a 2,000-event stream, CPU per
// hit, memory per entry. In process, the mock upstream (no network): the miss figure is the
// gateway's own cost plus the mock's, so the hit's saving is a floor.
//
//   npx tsx bench/cache-hit.ts
import { createGateway, createMemoryResponseCache } from '../src/index'

const store = createMemoryResponseCache()
const gateway = createGateway({
  groups: [
    {
      id: 'g',
      protocol: 'openai',
      models: ['short', { name: 'long', upstreamModel: 'long' }],
      upstreams: [{ provider: 'mock', reply: 'word '.repeat(2000).trim() }],
      cache: { ttlSeconds: 600, maxEntryBytes: 16_777_216 },
    },
  ],
  keys: [{ key: 'sk-bench-0123456789abcdefABCDEF' }],
  responseCache: store,
})

async function call(model: string, content: string, stream: boolean, noCache = false) {
  const response = await gateway(
    new Request('http://gateway.test/v1/chat/completions', {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-bench-0123456789abcdefABCDEF',
        'content-type': 'application/json',
        ...(noCache ? { 'cache-control': 'no-store' } : {}),
      },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }], stream }),
    }),
  )
  await response.text()
  return response.headers.get('x-gateway-cache')
}

async function time(runs: number, run: () => Promise<unknown>) {
  const samples: number[] = []
  for (let index = 0; index < runs; index++) {
    const start = performance.now()
    await run()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  return { p50: samples[Math.floor(runs / 2)]!, p90: samples[Math.floor(runs * 0.9)]! }
}

const fmt = (x: { p50: number; p90: number }) =>
  `p50 ${x.p50.toFixed(3)} ms, p90 ${x.p90.toFixed(3)} ms`
for (const [label, model, stream, runs] of [
  ['JSON', 'short', false, 300],
  ['2,000-event stream', 'long', true, 40],
] as const) {
  await call(model, 'prime', stream)
  await new Promise((resolve) => setTimeout(resolve, 10))
  const miss = await time(runs, () => call(model, 'prime', stream, true))
  const hit = await time(runs, () => call(model, 'prime', stream))
  console.log(`${label}: miss (no-store) ${fmt(miss)}; hit ${fmt(hit)}`)
}
// CPU per hit: process CPU time over many JSON hits.
const hits = 2000
const cpu = process.cpuUsage()
for (let index = 0; index < hits; index++) await call('short', 'prime', false)
const used = process.cpuUsage(cpu)
console.log(`CPU per JSON hit: ${((used.user + used.system) / hits).toFixed(1)} µs`)
const cpuStream = process.cpuUsage()
for (let index = 0; index < 50; index++) await call('long', 'prime', true)
const usedStream = process.cpuUsage(cpuStream)
console.log(
  `CPU per 2,000-event stream hit: ${((usedStream.user + usedStream.system) / 50 / 1000).toFixed(2)} ms`,
)
// Memory per entry: heap growth over many distinct short entries.
globalThis.gc?.()
const before = process.memoryUsage().heapUsed
const entries = 2000
for (let index = 0; index < entries; index++) await call('short', `distinct ${index}`, false)
await new Promise((resolve) => setTimeout(resolve, 50))
globalThis.gc?.()
const after = process.memoryUsage().heapUsed
console.log(
  `memory per short JSON entry: ${((after - before) / entries / 1024).toFixed(2)} KiB heap (store counts ${(store.bytes / store.size).toFixed(0)} B of text per entry)`,
)
await gateway.close()
