/**
 * CPU per call of the Vertex upstream's own work against a plain HTTP upstream of the same family:
 * preparing the request (Claude's body rewritten: `anthropic_version` in, `model` out), signing it
 * with the cached token, and sending it to a `fetch` that answers at once. The difference is what
 * a Vertex upstream costs per request beyond an Anthropic or Gemini upstream with a static key.
 *
 * Run: `npx tsx bench/vertex-sign-cost.ts`
 */
import { createHttpProvider } from '../src/upstream/http-provider'
import type { UpstreamCall, UpstreamProvider } from '../src/upstream/provider'
import { vertexKind } from '../src/upstream/vertex/kind'

const answer = () =>
  Promise.resolve(new Response('{}', { headers: { 'content-type': 'application/json' } }))
const fetchStub = (async () => answer()) as typeof fetch

const body = JSON.stringify({
  model: 'claude-sonnet-4-5@20250929',
  max_tokens: 1024,
  system: 'You are a helpful assistant. '.repeat(20),
  messages: Array.from({ length: 6 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Turn ${index}: ${'some words of the conversation '.repeat(30)}`,
  })),
})
const call = (): UpstreamCall => ({
  operation: 'messages',
  model: 'claude-sonnet-4-5@20250929',
  body,
  headers: new Headers({ 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }),
  stream: false,
  signal: new AbortController().signal,
})

const plain = createHttpProvider({
  id: 'plain',
  protocol: 'anthropic',
  baseUrl: 'https://api.anthropic.com',
  apiKey: 'sk-ant-bench-key-0123456789',
  fetch: fetchStub,
})
const vertex = vertexKind.create(
  {
    provider: 'vertex',
    project: 'bench-project',
    region: 'us-east5',
    credentials: () => ({
      value: 'ya29.bench-token-0123456789',
      expiresAt: Date.now() + 3_600_000,
    }),
  },
  { id: 'vertex', protocol: 'anthropic', now: Date.now, fetch: fetchStub },
)

const geminiBody = JSON.stringify({
  contents: Array.from({ length: 6 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'model',
    parts: [{ text: `Turn ${index}: ${'some words of the conversation '.repeat(30)}` }],
  })),
})
const geminiCall = (): UpstreamCall => ({
  operation: 'generate-content',
  model: 'gemini-2.5-flash',
  body: geminiBody,
  headers: new Headers({ 'content-type': 'application/json' }),
  stream: false,
  signal: new AbortController().signal,
})
const plainGemini = createHttpProvider({
  id: 'plain-gemini',
  protocol: 'gemini',
  baseUrl: 'https://generativelanguage.googleapis.com',
  apiKey: 'gemini-bench-key-0123456789',
  fetch: fetchStub,
})
const vertexGemini = vertexKind.create(
  {
    provider: 'vertex',
    project: 'bench-project',
    region: 'global',
    credentials: () => ({
      value: 'ya29.bench-token-0123456789',
      expiresAt: Date.now() + 3_600_000,
    }),
  },
  { id: 'vertex-gemini', protocol: 'gemini', now: Date.now, fetch: fetchStub },
)

/** Mean CPU microseconds per send, over `rounds` sequential sends after a warm-up. */
async function measure(
  provider: UpstreamProvider,
  rounds: number,
  make: () => UpstreamCall = call,
): Promise<number> {
  for (let index = 0; index < 2_000; index += 1) await provider.send(make())
  const start = process.cpuUsage()
  for (let index = 0; index < rounds; index += 1) await provider.send(make())
  const used = process.cpuUsage(start)
  return (used.user + used.system) / rounds
}

const rounds = 20_000
const results: Record<string, number[]> = {
  plain: [],
  vertex: [],
  plainGemini: [],
  vertexGemini: [],
}
for (let repeat = 0; repeat < 3; repeat += 1) {
  results['plain']!.push(await measure(plain, rounds))
  results['vertex']!.push(await measure(vertex, rounds))
  results['plainGemini']!.push(await measure(plainGemini, rounds, geminiCall))
  results['vertexGemini']!.push(await measure(vertexGemini, rounds, geminiCall))
}
const best = (values: number[]) => Math.min(...values)
console.log(`body ${body.length} bytes, ${rounds} sends per round, best of 3 rounds`)
console.log(`plain anthropic upstream: ${best(results['plain']!).toFixed(1)} µs CPU per send`)
console.log(`vertex (Claude) upstream: ${best(results['vertex']!).toFixed(1)} µs CPU per send`)
console.log(
  `difference:               ${(best(results['vertex']!) - best(results['plain']!)).toFixed(1)} µs`,
)
console.log(`plain gemini upstream:    ${best(results['plainGemini']!).toFixed(1)} µs CPU per send`)
console.log(
  `vertex (Gemini) upstream: ${best(results['vertexGemini']!).toFixed(1)} µs CPU per send`,
)
console.log(
  `difference:               ${(best(results['vertexGemini']!) - best(results['plainGemini']!)).toFixed(1)} µs`,
)
