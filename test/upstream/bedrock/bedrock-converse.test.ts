import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type RequestEvent } from '../../../src/index'
import { createNodeFetch, serveGateway } from '../../../src/node/index'
import { startBedrockFake } from '../../helpers/bedrock/bedrock-fake'
import { keys } from '../../helpers/gateway'

/**
 * A `converse` group on Bedrock end to end: the SDKs of every client protocol at their defaults,
 * the gateway's Converse codec, the bedrock kind (SigV4, ConverseStream's binary frames read as
 * SSE named by event type), and the Bedrock fake (its own verifier, Converse's request rules).
 */
const credentials = {
  accessKeyId: 'AKIAQNZGKEXAMPLE0003',
  secretAccessKey: 'Y29udmVyc2Utc2VjcmV0LWFjY2Vzcy1rZXktMDEyMzQ1',
}
let fake: Awaited<ReturnType<typeof startBedrockFake>>
let served: Awaited<ReturnType<typeof serveGateway>>
const events: RequestEvent[] = []

beforeAll(async () => {
  fake = await startBedrockFake({ region: 'us-west-2', credentials, writeBytes: 11 })
  served = await serveGateway(
    createGateway({
      groups: [
        {
          id: 'nova',
          protocol: 'converse',
          models: [{ name: 'nova-pro', upstreamModel: 'us.amazon.nova-pro-v1:0' }],
          upstreams: [
            { provider: 'bedrock', region: 'us-west-2', baseUrl: fake.url, ...credentials },
          ],
        },
      ],
      keys: [{ key: keys.main }],
      fetch: createNodeFetch(),
      onEvent: (event) => events.push(event),
    }),
    { port: 0 },
  )
})
afterAll(async () => {
  await served.close()
  await fake.close()
})

const openai = () => new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1` })
const anthropic = () => new Anthropic({ apiKey: keys.main, baseURL: served.url })
const genai = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } })
const answer = 'Answer from nova-pro.'

describe('a converse group on Bedrock', () => {
  it('answers the openai SDK over Converse and ConverseStream, signed', async () => {
    const completion = await openai().chat.completions.create({
      model: 'nova-pro',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]!.message.content).toBe(answer)
    expect(fake.calls.at(-1)!.path).toBe('/model/us.amazon.nova-pro-v1%3A0/converse')
    expect(fake.calls.at(-1)!.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAQNZGKEXAMPLE0003\//,
    )
    const stream = await openai().chat.completions.create({
      model: 'nova-pro',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      usage = chunk.usage ?? usage
    }
    expect(text).toBe(answer)
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6 })
    expect(fake.calls.at(-1)!.path).toBe('/model/us.amazon.nova-pro-v1%3A0/converse-stream')
  })

  it('answers the Anthropic and @google/genai SDKs, streamed', async () => {
    const message = await anthropic()
      .messages.stream({
        model: 'nova-pro',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
    expect(message.content).toMatchObject([{ type: 'text', text: answer }])
    let text = ''
    for await (const chunk of await genai().models.generateContentStream({
      model: 'nova-pro',
      contents: 'Hi',
    }))
      text += chunk.text ?? ''
    expect(text).toBe(answer)
  })

  it('fails a ConverseStream throttled before its first event with 429, and mid-stream as the error event', async () => {
    fake.nextStreams({ kind: 'exception-first', exception: 'throttlingException' })
    const stream = await openai().chat.completions.create({
      model: 'nova-pro',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe(answer)
    // The throttled attempt failed with 429 before any byte; the call was tried again.
    expect(events.at(-1)?.attempts?.map((attempt) => attempt.status)).toEqual([429, 200])
    fake.nextStreams({
      kind: 'exception-after',
      events: 2,
      exception: 'throttlingException',
      message: 'Slow down.',
    })
    const failure = await anthropic()
      .messages.stream({
        model: 'nova-pro',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Anthropic.APIError)
    expect(JSON.stringify((failure as { error: unknown }).error)).toContain('rate_limit_error')
  })
})
