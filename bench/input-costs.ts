/**
 * What the gateway's handling of client input costs, in-process (`npm run bench:input`):
 * - the passthrough splice and the nesting/member scan, in µs, on a typical and a large body;
 * - the longest event-loop block a 30 MB body causes, for an unknown model, a passthrough call and
 *   a translated one, with many tiny messages (over the array cap) and with 20,000 ordinary ones.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseClientJson } from '../src/http/client-json'
import { scanJson } from '../src/internal/json-members'
import { createGateway } from '../src/index'
import { anthropicPassthroughBody } from '../src/protocols/anthropic/passthrough-body'
import { rewriteOpenAIChatBody } from '../src/protocols/openai/rewrite-body'

function chatBody(messageCount: number, words: number, stream: boolean): string {
  const messages = Array.from({ length: messageCount }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Turn ${index}: ` + 'a line of an agent session transcript, '.repeat(words),
  }))
  const tools = [
    {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    },
  ]
  return JSON.stringify({
    model: 'fast',
    messages,
    tools,
    max_tokens: 256,
    ...(stream ? { stream: true } : {}),
  })
}

function anthropicBody(messageCount: number, words: number): string {
  const messages = Array.from({ length: messageCount }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      {
        type: 'text',
        text: `Turn ${index}: ` + 'a line of an agent session transcript, '.repeat(words),
      },
    ],
  }))
  return JSON.stringify({ model: 'fast', max_tokens: 1024, system: 'Be brief.', messages })
}

function microseconds(name: string, run: () => unknown): void {
  for (let index = 0; index < 200; index += 1) run()
  let count = 0
  const start = performance.now()
  let now = start
  while (now - start < 1000) {
    for (let index = 0; index < 20; index += 1) run()
    count += 20
    now = performance.now()
  }
  console.log(`${name.padEnd(58)} ${(((now - start) * 1000) / count).toFixed(2).padStart(9)} µs`)
}

console.log('— splice and scan (µs per body)')
for (const [label, text] of [
  ['typical chat, 9 messages', chatBody(9, 12, true)],
  ['large chat, 400 messages', chatBody(400, 50, true)],
] as const) {
  const json = parseClientJson(text)
  console.log(`${label}: ${(text.length / 1024).toFixed(1)} KiB`)
  microseconds('  scan (nesting + top-level members)', () => scanJson(text, 128))
  microseconds('  splice model + stream_options (members known)', () =>
    rewriteOpenAIChatBody(json, { upstreamModel: 'gpt-4o-mini-2024-07-18', includeUsage: true }),
  )
  microseconds('  scan + splice (the whole passthrough cost)', () =>
    rewriteOpenAIChatBody(parseClientJsonScanOnly(text, json.value), {
      upstreamModel: 'gpt-4o-mini-2024-07-18',
      includeUsage: true,
    }),
  )
  microseconds('  JSON.parse, for scale', () => JSON.parse(text))
}
for (const [label, text] of [
  ['typical messages, 8 turns', anthropicBody(8, 12)],
  ['large messages, 400 turns', anthropicBody(400, 50)],
] as const) {
  const json = parseClientJson(text)
  console.log(`${label}: ${(text.length / 1024).toFixed(1)} KiB`)
  microseconds('  scan + splice model', () =>
    anthropicPassthroughBody(parseClientJsonScanOnly(text, json.value), 'claude-sonnet-4-5'),
  )
}

/** The parse step without JSON.parse (already measured apart): the scan, as the handler runs it. */
function parseClientJsonScanOnly(text: string, value: unknown) {
  return { text, value, members: scanJson(text, 128).object }
}

const key = 'sk-bench-0123456789abcdef0123'
const openAIAnswer = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'up',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
})
const anthropicAnswer = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'c',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
})
const gateway = createGateway({
  maxBodyBytes: 64 * 1024 * 1024,
  groups: [
    {
      id: 'oa',
      protocol: 'openai',
      models: [{ name: 'fast', upstreamModel: 'up' }],
      upstreams: [{ baseUrl: 'http://oa.test/v1', apiKey: 'k' }],
    },
    {
      id: 'an',
      protocol: 'anthropic',
      models: [{ name: 'claude', upstreamModel: 'claude-x' }],
      upstreams: [{ baseUrl: 'http://an.test', apiKey: 'k' }],
    },
  ],
  keys: [{ key }],
  fetch: async (input) =>
    new Response(String(input).includes('an.test') ? anthropicAnswer : openAIAnswer, {
      headers: { 'content-type': 'application/json' },
    }),
})

function manyMessages(model: string, count: number, size: number): string {
  const content = 'x'.repeat(size)
  const messages = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content,
  }))
  return JSON.stringify({ model, messages, max_tokens: 100 })
}

async function loopBlock(label: string, text: string): Promise<void> {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  await new Promise((resolve) => setTimeout(resolve, 20))
  const start = performance.now()
  const response = await gateway(
    new Request('http://gateway.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: text,
    }),
  )
  await response.text()
  const total = performance.now() - start
  await new Promise((resolve) => setTimeout(resolve, 20))
  histogram.disable()
  console.log(
    `${label.padEnd(48)} ${response.status}  ${(text.length / 1e6).toFixed(1)} MB  total ${total.toFixed(0).padStart(5)} ms  longest block ${(histogram.max / 1e6).toFixed(0).padStart(5)} ms`,
  )
}

console.log('— event-loop block of one 30 MB body')
await loopBlock('warm-up', manyMessages('fast', 10, 10))
for (const [shape, count, size] of [
  ['950,000 tiny messages', 950_000, 2],
  ['20,000 messages of 1.5 KB', 20_000, 1_480],
] as const) {
  for (const [target, model] of [
    ['unknown model', 'nope'],
    ['passthrough', 'fast'],
    ['translated to anthropic', 'claude'],
  ] as const) {
    await loopBlock(`${shape}, ${target}`, manyMessages(model, count, size))
  }
}
