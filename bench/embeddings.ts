/**
 * `npm run bench:embeddings`: the size and the time of a 100-input embedding batch of 3072-float
 * vectors through the gateway, in process (no sockets), for each path: OpenAI passthrough, an
 * OpenAI client on a Gemini group (float and base64, packed by the gateway), and Gemini
 * passthrough. The upstream is a `fetch` answering canned, realistic bodies (17-digit floats, as
 * the vendors write them), so the figures are the gateway's own work: parsing the upstream's
 * answer, checking it, translating and writing the client's. Each case reports the client
 * answer's bytes and the median and p90 of `--runs` (40) requests after `--warmup` (10).
 */
import { parseArgs } from 'node:util'
import { createGateway } from '../src/index'

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '40' }, warmup: { type: 'string', default: '10' } },
})
const runs = Number(flags.runs)
const warmup = Number(flags.warmup)
const inputs = 100
const dimensions = 3072
const key = 'sk-bench-embeddings-0123456789abcdef'

/** A vector as a vendor writes it: floats of 17 significant digits or so, signed. */
function vector(seed: number): number[] {
  return Array.from({ length: dimensions }, (_, index) => Math.sin(seed * 131 + index) * 0.05)
}
const vectors = Array.from({ length: inputs }, (_, index) => vector(index))
const texts = vectors.map((_, index) => `Document ${index}: ${'lorem ipsum '.repeat(20)}`)

const geminiBatch = JSON.stringify({ embeddings: vectors.map((values) => ({ values })) })
const openAIList = JSON.stringify({
  object: 'list',
  data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
  model: 'text-embedding-3-large',
  usage: { prompt_tokens: 3000, total_tokens: 3000 },
})

const upstreamFetch = async (input: RequestInfo | URL): Promise<Response> => {
  const url = String(input instanceof Request ? input.url : input)
  const body = url.includes(':batchEmbedContents') ? geminiBatch : openAIList
  return new Response(body, { headers: { 'content-type': 'application/json' } })
}

const gateway = createGateway({
  groups: [
    {
      id: 'o',
      protocol: 'openai',
      models: ['text-embedding-3-large'],
      upstreams: [{ baseUrl: 'https://openai.bench/v1', apiKey: 'sk-upstream-bench-000000' }],
    },
    {
      id: 'g',
      protocol: 'gemini',
      models: ['gemini-embedding-001'],
      upstreams: [{ baseUrl: 'https://gemini.bench', apiKey: 'gemini-upstream-bench-0000' }],
    },
  ],
  keys: [{ key }],
  fetch: upstreamFetch,
})

type Case = { name: string; path: string; body: unknown }
const cases: Case[] = [
  {
    name: 'OpenAI client → OpenAI group (passthrough, float)',
    path: '/v1/embeddings',
    body: { model: 'text-embedding-3-large', input: texts, encoding_format: 'float' },
  },
  {
    name: 'OpenAI client → Gemini group (translated, float)',
    path: '/v1/embeddings',
    body: { model: 'gemini-embedding-001', input: texts, encoding_format: 'float' },
  },
  {
    name: 'OpenAI client → Gemini group (translated, base64 by the gateway)',
    path: '/v1/embeddings',
    body: { model: 'gemini-embedding-001', input: texts, encoding_format: 'base64' },
  },
  {
    name: 'Gemini client → Gemini group (passthrough)',
    path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
    body: {
      requests: texts.map((text) => ({
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text }] },
      })),
    },
  },
  {
    name: 'Gemini client → OpenAI group (translated)',
    path: '/v1beta/models/text-embedding-3-large:batchEmbedContents',
    body: { requests: texts.map((text) => ({ content: { parts: [{ text }] } })) },
  },
]

async function once(test: Case): Promise<{ ms: number; bytes: number }> {
  const started = performance.now()
  const response = await gateway(
    new Request(`http://gateway.bench${test.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(test.body),
    }),
  )
  const bytes = (await response.arrayBuffer()).byteLength
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`${test.name}: ${response.status}`)
  return { ms, bytes }
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!

console.log(
  `${inputs} inputs × ${dimensions} dimensions; upstream answers: Gemini ${geminiBatch.length} B, OpenAI ${openAIList.length} B`,
)
for (const test of cases) {
  for (let index = 0; index < warmup; index++) await once(test)
  const times: number[] = []
  let bytes = 0
  for (let index = 0; index < runs; index++) {
    const result = await once(test)
    times.push(result.ms)
    bytes = result.bytes
  }
  times.sort((a, b) => a - b)
  console.log(
    `${test.name}: ${bytes} B answer, median ${percentile(times, 0.5).toFixed(1)} ms, p90 ${percentile(times, 0.9).toFixed(1)} ms`,
  )
}
await gateway.close()
