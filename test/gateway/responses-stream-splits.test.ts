import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter, type ProtocolName } from '../../src/index'
import { gatewayUrl, keys } from '../helpers/gateway'
import { expectResponsesStreamOrder } from '../helpers/responses-stream'
import { everySplit, randomSplit, streamOfChunks } from '../helpers/streams'

/**
 * Every upstream stream fixture of every family, each relayed to a Responses client: `every` ones
 * at every byte offset (one of each family; the decoders' own tests split all of them so), the
 * rest at 30 random splits.
 */
const cases: Array<{
  family: 'openai' | 'anthropic' | 'gemini' | 'responses'
  fixture: string
  every: boolean
}> = [
  { family: 'openai', fixture: 'tool-calls.sse', every: true },
  { family: 'openai', fixture: 'text-stream-usage.sse', every: false },
  { family: 'openai', fixture: 'text-stream-usage-crlf.sse', every: false },
  { family: 'openai', fixture: 'deepseek-reasoning.sse', every: false },
  { family: 'openai', fixture: 'no-arg-tool.sse', every: false },
  { family: 'openai', fixture: 'tool-call-no-index.sse', every: false },
  { family: 'openai', fixture: 'tool-call-single-shot.sse', every: false },
  { family: 'openai', fixture: 'vllm-usage-null-choices.sse', every: false },
  { family: 'anthropic', fixture: 'thinking.sse', every: true },
  { family: 'anthropic', fixture: 'text.sse', every: false },
  { family: 'anthropic', fixture: 'tool-use.sse', every: false },
  { family: 'anthropic', fixture: 'error-mid-stream.sse', every: false },
  { family: 'anthropic', fixture: 'refusal.sse', every: false },
  { family: 'gemini', fixture: 'thinking.sse', every: true },
  { family: 'gemini', fixture: 'text.sse', every: false },
  { family: 'gemini', fixture: 'tool-call.sse', every: false },
  { family: 'responses', fixture: 'reasoning-tool-call.sse', every: true },
  { family: 'responses', fixture: 'text.sse', every: false },
  { family: 'responses', fixture: 'custom-tool-call.sse', every: false },
  { family: 'responses', fixture: 'incomplete.sse', every: false },
  { family: 'responses', fixture: 'error-mid-stream.sse', every: false },
]

const read = (family: string, name: string) =>
  readFileSync(new URL(`../fixtures/${family}/${name}`, import.meta.url), 'utf8')

/** A gateway on one upstream family whose answer is the fixture cut into `next.chunks`. */
function gatewayFor(family: (typeof cases)[number]['family']) {
  const next = { chunks: [] as Uint8Array[] }
  const meter = createMemoryUsageMeter()
  const marked = family === 'responses'
  const protocol: ProtocolName = marked ? 'openai' : family
  const gateway = createGateway({
    groups: [
      {
        id: 'g',
        protocol: protocol as 'openai' | 'anthropic' | 'gemini',
        models: ['m'],
        upstreams: [{ baseUrl: 'https://upstream.test/v1', responses: marked }],
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: meter,
    generateId: () => 'req_split',
    now: () => 1_763_000_000_000,
    fetch: async () =>
      new Response(streamOfChunks(next.chunks), {
        headers: { 'content-type': 'text/event-stream' },
      }),
  })
  return { gateway, meter, next }
}

/** A Responses client's stream when the upstream sends its fixture cut into `chunks`. */
async function relay(target: ReturnType<typeof gatewayFor>, chunks: Uint8Array[]) {
  target.next.chunks = chunks
  const response = await target.gateway(
    new Request(`${gatewayUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}` },
      body: JSON.stringify({
        model: 'm',
        input: 'hi',
        stream: true,
        reasoning: { effort: 'low', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
        tools: [{ type: 'function', name: 'get_weather' }],
      }),
    }),
  )
  return { text: await response.text(), usage: target.meter.records().at(-1)?.usage }
}

describe('a Responses client stream at every chunk split of every upstream family', () => {
  it.each(cases)(
    '$family $fixture: the same ordered stream and usage, however the upstream splits it',
    async ({ family, fixture, every }) => {
      const text = read(family, fixture)
      const target = gatewayFor(family)
      const whole = await relay(target, [new TextEncoder().encode(text)])
      expectResponsesStreamOrder(whole.text)
      for (const chunks of every ? everySplit(text) : []) {
        const split = await relay(target, chunks)
        expect(split.text).toBe(whole.text)
        expect(split.usage).toEqual(whole.usage)
      }
      for (let seed = 1; seed <= 30; seed += 1)
        expect((await relay(target, randomSplit(text, seed))).text).toBe(whole.text)
    },
    // Thousands of requests per fixture: seconds alone, several times that on a loaded machine.
    120_000,
  )
})
