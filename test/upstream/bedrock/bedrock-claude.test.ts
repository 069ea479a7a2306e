import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { applicationProfileArn, useClaudeOnBedrock } from '../../helpers/bedrock/claude-on-bedrock'

/**
 * Claude on Bedrock end to end: the official SDKs at their defaults, through a gateway on a
 * loopback port, to the Bedrock fake (Claude body rules, event streams written a few bytes at a
 * time). The model is an inference profile id with its `:0` version.
 */
const { events, anthropic, openai, genai, lastCall } = useClaudeOnBedrock()

describe('Claude on Bedrock through the Anthropic SDK', () => {
  it('calls InvokeModel signed, with the body Bedrock wants, the profile id encoded once', async () => {
    const message = await anthropic().messages.create(
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Hello' }],
      },
      { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
    )
    expect(message.content).toEqual([
      { type: 'text', text: 'Answer from claude-sonnet-4-5-20250929.' },
    ])
    expect(message.model).toBe('claude-sonnet-4-5')
    const call = lastCall()
    expect(call.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke')
    expect(call.body['anthropic_version']).toBe('bedrock-2023-05-31')
    expect(call.body).not.toHaveProperty('model')
    // Signed with SigV4 (checked by the fake's own verifier), the session token signed too, and
    // nothing the client sent among the signed headers.
    expect(call.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIAQNZGKEXAMPLE0001\/\d{8}\/us-east-1\/bedrock\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=[0-9a-f]{64}$/,
    )
    const signed = /SignedHeaders=([a-z0-9;-]+)/
      .exec(call.headers['authorization']!)![1]!
      .split(';')
    expect(signed).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']))
    expect(
      signed.filter((name) => /^(traceparent|anthropic-|x-stainless|user-agent)/.test(name)),
    ).toEqual([])
    expect(call.headers['traceparent']).toBe(
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    )
  })

  it('sends an ARN unchanged, encoded once, and signs it as AWS wants (streamed too)', async () => {
    const message = await anthropic()
      .messages.stream({
        model: 'claude-app-profile',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
    expect(message.content).toEqual([{ type: 'text', text: 'Answer from a1b2c3d4e5f6.' }])
    expect(lastCall().path).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fa1b2c3d4e5f6/invoke-with-response-stream',
    )
    expect(lastCall().modelId).toBe(applicationProfileArn)
  })

  it('moves the anthropic-beta header into the body and streams thinking with its signature and a tool call', async () => {
    const stream = anthropic().beta.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      betas: ['interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14'],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [
        {
          name: 'Bash',
          description: 'Runs a command.',
          input_schema: {
            type: 'object',
            properties: { command: { type: 'string' } },
            required: ['command'],
          },
        },
      ],
      messages: [{ role: 'user', content: 'List the files.' }],
    })
    const message = await stream.finalMessage()
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'tool_use'])
    const thinking = message.content[0] as { signature: string }
    expect(thinking.signature).toMatch(/^[A-Za-z0-9+/=]+$/)
    expect(message.stop_reason).toBe('tool_use')
    const call = lastCall()
    expect(call.path).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    )
    expect(call.body['anthropic_beta']).toEqual([
      'interleaved-thinking-2025-05-14',
      'fine-grained-tool-streaming-2025-05-14',
    ])
    expect(call.body).not.toHaveProperty('stream')
    expect(call.headers['anthropic-beta']).toBeUndefined()
  })

  it("runs Claude Code's loop over several turns: thinking signatures sent back are accepted", async () => {
    const client = anthropic()
    const tools: Anthropic.Tool[] = [
      {
        name: 'Bash',
        description: 'Executes a given bash command.',
        input_schema: {
          type: 'object',
          properties: { command: { type: 'string' } },
          required: ['command'],
          additionalProperties: false,
          $schema: 'http://json-schema.org/draft-07/schema#',
        },
      },
    ]
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'List the files here.' }] },
    ]
    const ask = () =>
      client.messages
        .stream(
          {
            model: 'claude-sonnet-4-5',
            max_tokens: 32_000,
            thinking: { type: 'enabled', budget_tokens: 31_999 },
            system: [
              {
                type: 'text',
                text: "You are Claude Code, Anthropic's official CLI for Claude.",
                cache_control: { type: 'ephemeral' },
              },
            ],
            tools,
            metadata: { user_id: 'user_abc_account_def_session_ghi' },
            messages,
          },
          { headers: { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14' } },
        )
        .finalMessage()
    // Turn 1 calls the tool; turn 2 answers from its result; turn 3 asks again and calls it again.
    const first = await ask()
    const call = first.content.find((block) => block.type === 'tool_use')
    expect(call?.name).toBe('Bash')
    messages.push({ role: 'assistant', content: first.content })
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'README.md\nsrc' }],
    })
    const second = await ask()
    expect(second.content.map((block) => block.type)).toEqual(['thinking', 'text'])
    messages.push({ role: 'assistant', content: second.content })
    messages.push({ role: 'user', content: [{ type: 'text', text: 'Now run the tests.' }] })
    const third = await ask()
    expect(third.content.map((block) => block.type)).toEqual(['thinking', 'tool_use'])
    expect(lastCall().body['anthropic_beta']).toEqual([
      'claude-code-20250219',
      'interleaved-thinking-2025-05-14',
    ])
    expect(lastCall().body['messages']).toHaveLength(5)
  })

  it('reports cache writes then cache reads for cache_control', async () => {
    const ask = () =>
      anthropic().messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        system: [
          {
            type: 'text',
            text: 'A long, cached system prompt for the cache test.',
            cache_control: { type: 'ephemeral' },
          },
        ],
        messages: [{ role: 'user', content: 'Hi' }],
      })
    const first = await ask()
    const second = await ask()
    expect(first.usage.cache_creation_input_tokens).toBe(1200)
    expect(second.usage.cache_read_input_tokens).toBe(1200)
    expect(events.at(-1)?.usage).toMatchObject({ cachedInputTokens: 1200 })
  })

  it("sends base64 images; an image URL is refused by Bedrock as a 400 in Anthropic's shape", async () => {
    const pixel =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const ok = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
            { type: 'text', text: 'What is it?' },
          ],
        },
      ],
    })
    expect(ok.stop_reason).toBe('end_turn')
    const refused = await anthropic()
      .messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
          },
        ],
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError)
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(
          /^ValidationException: messages\.0\.content\.0\.image\.source/,
        ),
      },
    })
  })

  it('counts tokens with CountTokens, on the foundation model', async () => {
    const counted = await anthropic().messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Count me' }],
    })
    expect(counted.input_tokens).toBeGreaterThan(0)
    const call = lastCall()
    expect(call.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens')
    expect(Object.keys(call.body['input'])).toEqual(['invokeModel'])
  })

  it("answers a refused credential as the gateway's upstream failure, never with AWS's words", async () => {
    const refused = await anthropic()
      .messages.create({
        model: 'claude-refused',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((error: unknown) => error)
    expect((refused as { status: number }).status).toBe(502)
    expect(JSON.stringify((refused as { error: unknown }).error)).not.toContain('ABSK')
    expect(events.at(-1)?.attempts?.[0]).toMatchObject({ status: 403, verdict: 'rejected-key' })
  })
})

describe('Claude on Bedrock through translation', () => {
  it('answers the openai SDK, JSON and stream', async () => {
    const completion = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]!.message.content).toBe('Answer from claude-sonnet-4-5-20250929.')
    const stream = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
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
    expect(text).toBe('Answer from claude-sonnet-4-5-20250929.')
    expect(usage?.completion_tokens).toBe(7)
  })

  it('answers the openai SDK on the Responses API, JSON and stream', async () => {
    const answer = await openai().responses.create({ model: 'claude-sonnet-4-5', input: 'Hi' })
    expect(answer.output_text).toBe('Answer from claude-sonnet-4-5-20250929.')
    expect(answer.usage?.output_tokens).toBeGreaterThan(0)
    expect(lastCall().operation).toBe('invoke')
    const stream = await openai().responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Hi',
      stream: true,
    })
    let text = ''
    let last = ''
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta
      last = event.type
    }
    expect(text).toBe('Answer from claude-sonnet-4-5-20250929.')
    expect(last).toBe('response.completed')
    expect(lastCall().operation).toBe('invoke-with-response-stream')
  })

  it('answers the @google/genai SDK, JSON and stream', async () => {
    const answer = await genai().models.generateContent({
      model: 'claude-sonnet-4-5',
      contents: 'Hi',
    })
    expect(answer.text).toBe('Answer from claude-sonnet-4-5-20250929.')
    let text = ''
    for await (const chunk of await genai().models.generateContentStream({
      model: 'claude-sonnet-4-5',
      contents: 'Hi',
    })) {
      text += chunk.text ?? ''
    }
    expect(text).toBe('Answer from claude-sonnet-4-5-20250929.')
  })
})
