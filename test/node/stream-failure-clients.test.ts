import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOpenAI } from '@langchain/openai'
import { GoogleGenAI } from '@google/genai'
import { streamText, type LanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { createNodeFetch, serveGateway } from '../../src/node/index'
import { anthropicTextFrames } from '../helpers/anthropic-upstream'
import { keys } from '../helpers/gateway'
import { geminiTextFrames } from '../helpers/gemini-upstream'
import { startSocketUpstream, type SocketAnswer, type SocketCall } from '../helpers/socket-upstream'
import { chatStreamFrames } from '../helpers/upstream'

/** How the upstream fails after its first pieces of text. */
type FailureMode = 'reset' | 'truncated'
let mode: FailureMode = 'reset'

/**
 * Each upstream family streams some text, then fails: its connection breaks (`reset`), or its body
 * ends cleanly without the protocol's terminator (`truncated`: no `[DONE]`, no `message_stop`, no
 * finish reason), which is as much a failure.
 */
function failingStream(call: SocketCall): SocketAnswer {
  const frames = call.url.startsWith('/v1/chat/completions')
    ? chatStreamFrames(['Par', 'is'], { includeUsage: true }).slice(0, mode === 'reset' ? 3 : -1)
    : call.url.startsWith('/v1/messages')
      ? anthropicTextFrames(['Par', 'is']).slice(0, mode === 'reset' ? 5 : -1)
      : geminiTextFrames(['Par', 'is', ' never'], { failAfter: false }).slice(0, 2)
  return {
    headers: { 'content-type': 'text/event-stream' },
    chunks: frames,
    then: mode === 'reset' ? 'reset' : 'end',
  }
}

let upstream: Awaited<ReturnType<typeof startSocketUpstream>>
let gateway: Awaited<ReturnType<typeof serveGateway>>
const meter = createMemoryUsageMeter()

beforeAll(async () => {
  upstream = await startSocketUpstream(failingStream)
  gateway = await serveGateway(
    createGateway({
      groups: [
        {
          id: 'o',
          protocol: 'openai',
          models: ['openai-model'],
          upstreams: [{ baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o-upstream-key-0123456789' }],
        },
        {
          id: 'a',
          protocol: 'anthropic',
          models: ['anthropic-model'],
          upstreams: [{ baseUrl: upstream.url, apiKey: 'sk-a-upstream-key-0123456789' }],
        },
        {
          id: 'g',
          protocol: 'gemini',
          models: ['gemini-model'],
          upstreams: [{ baseUrl: upstream.url, apiKey: 'g-upstream-key-0123456789' }],
        },
      ],
      keys: [{ key: keys.main }],
      usageMeter: meter,
      fetch: createNodeFetch(),
    }),
    { port: 0 },
  )
})
afterAll(async () => {
  await gateway.close()
  await upstream.close()
})

type Outcome = { text: string; failed: boolean; how: string }

/**
 * Runs a LangChain Gemini stream, collecting the rejection it leaks. `@google/generative-ai` tees
 * every stream into the chunks and an aggregated response promise; LangChain reads only the
 * chunks, so when a stream fails — however it fails, against Google's servers too — the other
 * promise rejects with no handler. That is the client's bug; here it is asserted, not ignored.
 */
async function withLeakedRejections(
  stream: () => Promise<AsyncIterable<{ content: unknown }>>,
): Promise<Outcome> {
  const runnerListeners = process.listeners('unhandledRejection')
  process.removeAllListeners('unhandledRejection')
  const leaked: unknown[] = []
  const collect = (reason: unknown) => void leaked.push(reason)
  process.on('unhandledRejection', collect)
  try {
    const outcome = await viaLangChain(stream)
    await new Promise((done) => setTimeout(done, 20))
    for (const reason of leaked) expect(String(reason)).toMatch(/GoogleGenerativeAI Error/)
    return outcome
  } finally {
    process.off('unhandledRejection', collect)
    for (const listener of runnerListeners) process.on('unhandledRejection', listener)
  }
}

async function viaAiSdk(model: LanguageModel): Promise<Outcome> {
  // An explicit output limit: for a model id it does not know ('openai-model'), the AI SDK's
  // Anthropic provider otherwise picks 4096 itself and warns about it on stderr.
  const result = streamText({
    model,
    prompt: 'Capital?',
    maxOutputTokens: 256,
    maxRetries: 0,
    onError: () => undefined,
  })
  let text = ''
  let failed = false
  let how = ''
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text
      if (part.type === 'error') {
        failed = true
        how = `error part: ${String((part.error as Error)?.message ?? part.error)}`
      }
      if (part.type === 'finish') how += ` finish=${part.finishReason}`
    }
  } catch (error) {
    failed = true
    how = `threw: ${(error as Error).message}`
  }
  return { text, failed, how }
}

async function viaLangChain(
  stream: () => Promise<AsyncIterable<{ content: unknown }>>,
): Promise<Outcome> {
  let text = ''
  try {
    for await (const chunk of await stream())
      text += typeof chunk.content === 'string' ? chunk.content : ''
  } catch (error) {
    return { text, failed: true, how: `threw: ${(error as Error).message}` }
  }
  return { text, failed: false, how: 'clean end' }
}

/** Each client library, speaking its own protocol to the gateway. */
const clients: Record<string, { run(model: string): Promise<Outcome> }> = {
  'ai-sdk openai': {
    run: (model) =>
      viaAiSdk(createOpenAI({ apiKey: keys.main, baseURL: `${gateway.url}/v1` }).chat(model)),
  },
  'ai-sdk anthropic': {
    run: (model) =>
      viaAiSdk(createAnthropic({ apiKey: keys.main, baseURL: `${gateway.url}/v1` })(model)),
  },
  'ai-sdk google': {
    run: (model) =>
      viaAiSdk(
        createGoogleGenerativeAI({ apiKey: keys.main, baseURL: `${gateway.url}/v1beta` })(model),
      ),
  },
  '@google/genai': {
    run: async (model) => {
      const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gateway.url } })
      let text = ''
      try {
        for await (const chunk of await genai.models.generateContentStream({
          model,
          contents: 'Capital?',
        }))
          text += chunk.text ?? ''
      } catch (error) {
        return { text, failed: true, how: `threw: ${(error as Error).message}` }
      }
      return { text, failed: false, how: 'clean end' }
    },
  },
  'langchain openai': {
    run: (model) =>
      viaLangChain(() =>
        new ChatOpenAI({
          model,
          apiKey: keys.main,
          maxRetries: 0,
          configuration: { baseURL: `${gateway.url}/v1` },
        }).stream('Capital?'),
      ),
  },
  'langchain anthropic': {
    run: (model) =>
      viaLangChain(() =>
        new ChatAnthropic({
          model,
          apiKey: keys.main,
          maxRetries: 0,
          anthropicApiUrl: gateway.url,
        }).stream('Capital?'),
      ),
  },
  'langchain google-genai': {
    run: (model) =>
      withLeakedRejections(() =>
        new ChatGoogleGenerativeAI({
          model,
          apiKey: keys.main,
          maxRetries: 0,
          baseUrl: gateway.url,
        }).stream('Capital?'),
      ),
  },
}

describe('a stream that fails after its first text is reported as failed by the popular clients, over a real socket', () => {
  for (const failure of ['reset', 'truncated'] as const) {
    for (const [name, client] of Object.entries(clients)) {
      for (const model of ['openai-model', 'anthropic-model', 'gemini-model']) {
        it(`${failure}: ${name} client, ${model.replace('-model', '')} group`, async () => {
          mode = failure
          const before = meter.records().length
          const outcome = await client.run(model)
          expect(outcome.text).toBe('Paris')
          expect(outcome.failed, outcome.how).toBe(true)
          // genai reads the error object itself (its ApiError), not just the connection's end.
          if (name === '@google/genai')
            expect(outcome.how).toMatch(/^threw: got status: UNAVAILABLE\. \{"error":\{"code":503,/)
          expect(meter.records().slice(before)).toMatchObject([{ outcome: 'error', model }])
        })
      }
    }
  }
})
