import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type GatewayHandler } from '../../../src/index'
import { startBedrockFake } from '../../helpers/bedrock/bedrock-fake'
import { keys } from '../../helpers/gateway'

/**
 * The Bedrock kind over the WHATWG `fetch` (a gateway given no Node transport, as on Workers,
 * Deno and Bun): the same answers as over the direct Node path, CountTokens' and errors' rewritten
 * answers included, and the endpoint taken from the config's `env`.
 */
const apiKey = 'ABSKQmVkcm9ja0FQSUtleS1mZXRjaC10cmFuc3BvcnQ='
let fake: Awaited<ReturnType<typeof startBedrockFake>>
let gateway: GatewayHandler

beforeAll(async () => {
  fake = await startBedrockFake({ region: 'eu-west-1', apiKey, writeBytes: 5 })
  gateway = createGateway({
    groups: [
      {
        id: 'claude',
        protocol: 'anthropic',
        models: [
          { name: 'claude-haiku', upstreamModel: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' },
        ],
        upstreams: [{ provider: 'bedrock', region: 'eu-west-1', apiKey }],
      },
    ],
    keys: [{ key: keys.main }],
    env: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url },
  })
})
afterAll(() => fake.close())

const client = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: 'http://gateway.test',
    fetch: async (input, init) => gateway(new Request(input, init)),
  })

describe('the bedrock kind over fetch', () => {
  it('answers JSON and streams read five bytes at a time, at the endpoint the env names', async () => {
    const message = await client().messages.create({
      model: 'claude-haiku',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(message.content).toEqual([
      { type: 'text', text: 'Answer from claude-haiku-4-5-20251001.' },
    ])
    const streamed = await client()
      .messages.stream({
        model: 'claude-haiku',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
    expect(streamed.content).toEqual(message.content)
    expect(fake.calls.at(-1)!.path).toBe(
      '/model/eu.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke-with-response-stream',
    )
  })

  it("rewrites CountTokens' answer and Bedrock's errors on this transport too", async () => {
    const counted = await client().messages.countTokens({
      model: 'claude-haiku',
      messages: [{ role: 'user', content: 'Count' }],
    })
    expect(counted).toEqual({ input_tokens: expect.any(Number) })
    fake.nextErrors({
      status: 400,
      errorType: 'ValidationException',
      message: 'Malformed input request: bad.',
    })
    const refused = await client()
      .messages.create({
        model: 'claude-haiku',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((error: unknown) => error)
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: 'ValidationException: Malformed input request: bad.',
      },
    })
  })
})
