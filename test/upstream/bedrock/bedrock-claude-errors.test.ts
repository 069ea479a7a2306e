import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { useClaudeOnBedrock } from '../../helpers/bedrock/claude-on-bedrock'

/**
 * Claude on Bedrock when Bedrock fails: exception frames before the first byte (failover) and
 * mid-stream (each client protocol's SDK gets an error, never a normal end), and AWS's HTTP errors.
 */
const bedrock = useClaudeOnBedrock()
const { events, anthropic, openai, genai, lastCall } = bedrock
const fake = () => bedrock.fake()

describe('Bedrock exceptions in the stream', () => {
  it('fails over to the second upstream on a throttling exception before the first byte', async () => {
    fake().nextStreams({ kind: 'exception-first', exception: 'throttlingException' })
    const message = await anthropic()
      .messages.stream({
        model: 'claude-pair',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
    expect(message.content).toEqual([
      { type: 'text', text: 'Answer from claude-sonnet-4-5-20250929.' },
    ])
    const attempts = events.at(-1)?.attempts ?? []
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['failed', 'answered'])
    expect(attempts[0]!.upstream).not.toBe(attempts[1]!.upstream)
    expect(attempts[0]!.status).toBe(429)
  })

  const midStream = () =>
    fake().nextStreams({
      kind: 'exception-after',
      events: 4,
      exception: 'throttlingException',
      message: 'Too many tokens, please wait.',
    })

  it('reaches the Anthropic SDK as an error event, never a normal end', async () => {
    midStream()
    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const failure = await stream.finalMessage().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Anthropic.APIError)
    expect(JSON.stringify((failure as { error: unknown }).error)).toContain('rate_limit_error')
  })

  it('reaches the openai SDK as an error', async () => {
    midStream()
    const stream = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    })
    const failure = await (async () => {
      for await (const _chunk of stream);
    })().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect(String(failure)).toMatch(/throttlingException|Too many tokens/)
  })

  it('reaches the openai SDK on the Responses API as an error', async () => {
    midStream()
    const stream = await openai().responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Hi',
      stream: true,
    })
    const types: string[] = []
    const failure = await (async () => {
      for await (const event of stream) types.push(event.type)
    })().catch((error: unknown) => error)
    // Text had reached the client; then the SDK throws the error event, and nothing completes.
    expect(types).toContain('response.output_text.delta')
    expect(types).not.toContain('response.completed')
    expect(String(failure)).toBe(
      'Error: Bedrock throttlingException: Too many tokens, please wait.',
    )
  })

  it('reaches the @google/genai SDK as an error', async () => {
    midStream()
    const failure = await (async () => {
      for await (const _chunk of await genai().models.generateContentStream({
        model: 'claude-sonnet-4-5',
        contents: 'Hi',
      }));
    })().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
  })
})

describe('A broken Bedrock stream', () => {
  const ask = () =>
    anthropic()
      .messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()

  it.each([
    ['a frame with a corrupt CRC', { kind: 'corrupt-crc', at: 3 } as const],
    ['a stream cut inside a frame', { kind: 'truncate', events: 3 } as const],
  ])('ends in an error event after the first bytes, never a normal end: %s', async (_, mode) => {
    fake().nextStreams(mode)
    const failure = await ask().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Anthropic.APIError)
    expect(JSON.stringify((failure as { error: unknown }).error)).toContain('api_error')
    expect(events.at(-1)).toMatchObject({ outcome: 'error' })
    expect(events.at(-1)?.attempts?.map((attempt) => attempt.phase)).toEqual(['stream'])
  })

  it.each([
    // The answer's HTTP status was 200; its body failed before any byte reached the client.
    ['a corrupt first frame', { kind: 'corrupt-crc', at: 0 } as const, 200],
    [
      'an `error` frame',
      { kind: 'error-frame', code: 'InternalServerException', message: 'Oops.' } as const,
      500,
    ],
  ])('fails the attempt before the first byte, and it is retried: %s', async (_, mode, status) => {
    fake().nextStreams(mode)
    // The failed attempt is retried (the next stream is whole), as an HTTP error would be.
    const message = await ask()
    expect(message.content).toEqual([
      { type: 'text', text: 'Answer from claude-sonnet-4-5-20250929.' },
    ])
    const attempts = events.at(-1)?.attempts ?? []
    expect(attempts).toHaveLength(2)
    expect(attempts[0]).toMatchObject({
      status,
      phase: 'first-byte',
      outcome: 'failed',
      error: 'upstream_error',
    })
    expect(attempts[1]).toMatchObject({ status: 200, outcome: 'answered' })
  })
})

describe("Bedrock's HTTP errors", () => {
  it('fails over on a ThrottlingException answer', async () => {
    fake().nextErrors({
      status: 429,
      errorType: 'ThrottlingException',
      message: 'Too many requests, please wait before trying again.',
    })
    const message = await anthropic().messages.create({
      model: 'claude-pair2',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(message.stop_reason).toBe('end_turn')
    expect(events.at(-1)?.attempts?.map((attempt) => attempt.status)).toEqual([429, 200])
  })

  it("gives an openai client Bedrock's validation error in OpenAI's shape, the AWS code leading", async () => {
    fake().nextErrors({
      status: 400,
      errorType: 'ValidationException',
      message:
        'The model returned the following errors: messages: at least one message is required',
    })
    const refused = await openai()
      .chat.completions.create({
        model: 'claude-sonnet-4-5',
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect((refused as Error).message).toContain(
      'ValidationException: The model returned the following errors',
    )
  })

  it('counts tokens for the @google/genai SDK through CountTokens', async () => {
    const counted = await genai().models.countTokens({
      model: 'claude-sonnet-4-5',
      contents: 'Count me please',
    })
    expect(counted.totalTokens).toBeGreaterThan(0)
    expect(lastCall().operation).toBe('count-tokens')
  })
})
