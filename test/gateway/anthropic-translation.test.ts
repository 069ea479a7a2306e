import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { anthropicMessage, anthropicTextFrames } from '../helpers/anthropic-upstream'
import { gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import { chatCompletion, chatStreamFrames, upstreamApiKey } from '../helpers/upstream'
import {
  anthropicCalls,
  anthropicClient,
  fixture,
  framesOf,
  gateway,
  lastAnthropicBody,
  openai,
  upstreams,
} from './anthropic-setup'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

describe('messages client × openai group (translation)', () => {
  it('translates a Claude Code-shaped request and answers in Anthropic shape', async () => {
    const { gateway: handler } = gateway()
    openai.answer({
      kind: 'json',
      body: chatCompletion('Translated!', {
        prompt_tokens: 50,
        completion_tokens: 5,
        total_tokens: 55,
      }),
    })
    const response = await handler(
      new Request(`${gatewayUrl}/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.main}`,
          'anthropic-version': '2026-10-21',
          'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
        },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          max_tokens: 32000,
          system: [
            { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'Be concise.' },
          ],
          tools: [
            {
              name: 'Bash',
              description: 'Run a command',
              input_schema: {
                type: 'object',
                properties: { command: { type: 'string' } },
                required: ['command'],
              },
            },
          ],
          messages: [
            {
              role: 'user',
              content: [{ type: 'text', text: 'List files', cache_control: { type: 'ephemeral' } }],
            },
          ],
          metadata: { user_id: 'user_abc' },
        }),
      }),
    )
    const body = (await response.json()) as Record<string, any>
    expect(response.status).toBe(200)
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-mini',
      content: [{ type: 'text', text: 'Translated!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 50,
        output_tokens: 5,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    })
    expect(body['id']).toMatch(/^msg_/)
    const sent = openai.lastBody() as Record<string, any>
    expect(sent['messages']).toEqual([
      { role: 'system', content: 'You are Claude Code.Be concise.' },
      { role: 'user', content: 'List files' },
    ])
    // gpt-4o-mini writes at most 16,384 tokens: Claude Code's 32,000 is capped, and said so.
    expect(sent['max_tokens']).toBe(16384)
    expect(sent['user']).toBe('user_abc')
    expect(sent['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'Bash',
          description: 'Run a command',
          parameters: {
            type: 'object',
            properties: { command: { type: 'string' } },
            required: ['command'],
          },
        },
      },
    ])
    expect(openai.lastCall().headers.get('anthropic-beta')).toBeNull()
    expect(openai.lastCall().headers.get('authorization')).toBe(`Bearer ${upstreamApiKey}`)
  })

  it('streams translated text to messages.stream() with exact usage', async () => {
    const { gateway: handler, meter } = gateway()
    openai.answer({
      kind: 'sse',
      frames: chatStreamFrames(['Hello', ' there'], { includeUsage: true }),
    })
    const stream = anthropicClient(handler).messages.stream({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const final = await stream.finalMessage()
    expect(final.content.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([
      'Hello there',
    ])
    expect(final.stop_reason).toBe('end_turn')
    expect(final.usage).toMatchObject({ input_tokens: 21, output_tokens: 2 })
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: { inputTokens: 21, outputTokens: 2, totalTokens: 23 },
    })
  })

  it('yields raw stream events in Anthropic order with stream: true', async () => {
    const { gateway: handler } = gateway()
    openai.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b'], { includeUsage: true }) })
    const stream = await anthropicClient(handler).messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
  })

  it('streams tool calls with their arguments through input_json_delta', async () => {
    const { gateway: handler } = gateway()
    openai.answer({ kind: 'sse', frames: framesOf(fixture('openai/tool-calls.sse')) })
    const final = await anthropicClient(handler)
      .messages.stream({
        model: 'gpt-4o-mini',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }],
      })
      .finalMessage()
    const tools = final.content.filter((block) => block.type === 'tool_use')
    expect(tools.length).toBeGreaterThanOrEqual(1)
    expect(
      tools.every(
        (block) =>
          block.type === 'tool_use' && typeof block.input === 'object' && block.input !== null,
      ),
    ).toBe(true)
    expect(final.stop_reason).toBe('tool_use')
  })

  it('sends a tool result round trip as OpenAI tool_calls and tool messages', async () => {
    const { gateway: handler } = gateway()
    openai.answer({ kind: 'json', body: chatCompletion('It is sunny.') })
    await anthropicClient(handler).messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 100,
      tools: [
        {
          name: 'get_weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01',
              content: [
                { type: 'text', text: 'sunny, ' },
                { type: 'text', text: '24C' },
              ],
            },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
    })
    expect((openai.lastBody() as Record<string, any>)['messages']).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'toolu_01',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'sunny, 24C' },
      { role: 'user', content: 'Thanks' },
    ])
  })

  it('turns DeepSeek reasoning_content into a thinking block', async () => {
    const { gateway: handler } = gateway()
    openai.answer({ kind: 'sse', frames: framesOf(fixture('openai/deepseek-reasoning.sse')) })
    const final = await anthropicClient(handler)
      .messages.stream({
        model: 'deepseek-chat',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Think' }],
      })
      .finalMessage()
    // The gateway's tag, carrying where the reasoning came from so that it can go back there.
    expect(final.content[0]).toMatchObject({
      type: 'thinking',
      signature: expect.stringMatching(/^gw1\.o\./),
    })
    expect(
      final.content[0]?.type === 'thinking' && final.content[0].thinking.length,
    ).toBeGreaterThan(0)
    expect(final.content.some((block) => block.type === 'text')).toBe(true)
  })

  it('TOOL-H-10: drops gateway-tagged thinking before it reaches Anthropic, and keeps Anthropic-signed thinking byte for byte', async () => {
    const { gateway: handler } = gateway()
    await anthropicClient(handler).messages.create({
      model: 'claude-sonnet',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from deepseek', signature: 'gw1.unsigned' },
            { type: 'text', text: 'Hello' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    })
    // Even on passthrough, the tagged block never reaches Anthropic; the rest of the turn does.
    expect(anthropicCalls.at(-1)!.body).not.toContain('gw1.unsigned')
    expect(lastAnthropicBody()['messages'][1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
    })
    const { decodeAnthropicRequest } = await import('../../src/protocols/anthropic/request-decode')
    const { encodeAnthropicRequest } = await import('../../src/protocols/anthropic/request-encode')
    const request = decodeAnthropicRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'foreign', signature: 'gw1.unsigned' },
            { type: 'thinking', thinking: 'real', signature: 'EqQBCkYIBRgC' },
            { type: 'text', text: 'Hello' },
          ],
        },
      ],
    })
    const encoded = encodeAnthropicRequest(request, { defaultMaxTokens: 1024 }) as {
      messages: Array<{ content: unknown[] }>
    }
    expect(encoded.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'real', signature: 'EqQBCkYIBRgC' },
      { type: 'text', text: 'Hello' },
    ])
  })

  it('throws after the partial text when the translated upstream stream fails', async () => {
    const { gateway: handler, meter } = gateway()
    openai.answer({
      kind: 'sse',
      frames: chatStreamFrames(['one ', 'two ', 'three']),
      failAfter: 3,
    })
    const stream = anthropicClient(handler).messages.stream({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    let text = ''
    stream.on('text', (delta) => void (text += delta))
    await expect(stream.finalMessage()).rejects.toThrow()
    expect(text).toBe('one two ')
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })

  it('answers an upstream 429 in Anthropic shape', async () => {
    const { gateway: handler } = gateway()
    openai.answer({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '3' },
      body: {
        error: { message: 'Slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    })
    const error = await anthropicClient(handler)
      .messages.create({
        model: 'gpt-4o-mini',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect(error).toMatchObject({
      error: { error: { type: 'rate_limit_error', message: 'Slow down' } },
    })
  })
})

describe('chat-completions client × anthropic group (translation)', () => {
  it('translates text both ways and echoes the call name', async () => {
    const { gateway: handler, meter, events } = gateway()
    upstreams.anthropic = {
      kind: 'json',
      body: anthropicMessage([{ type: 'text', text: 'Bonjour' }]),
    }
    const completion = await openAIClient(handler).chat.completions.create({
      model: 'sonnet',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 1.6,
    })
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Bonjour' },
      finish_reason: 'stop',
    })
    expect(completion.model).toBe('sonnet')
    expect(completion.usage).toMatchObject({
      prompt_tokens: 35,
      completion_tokens: 12,
      total_tokens: 47,
      prompt_tokens_details: { cached_tokens: 10 },
    })
    const sent = lastAnthropicBody()
    expect(sent).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      // No limit from the client: the model's own maximum (Claude Sonnet 4.5: 64,000).
      max_tokens: 64000,
      temperature: 1,
    })
    expect(meter.records().at(-1)?.usage?.totalTokens).toBe(47)
    expect(events.at(-1)?.adjustments).toEqual([
      {
        field: 'temperature',
        change: 'clamped',
        from: 1.6,
        to: 1,
        reason: 'claude-sonnet-4-5 takes temperatures up to 1',
      },
    ])
  })

  it('streams to the openai SDK with the usage chunk it asked for', async () => {
    const { gateway: handler } = gateway()
    upstreams.anthropic = { kind: 'sse', frames: framesOf(fixture('anthropic/text.sse')) }
    const stream = openAIClient(handler).chat.completions.stream({
      model: 'claude-sonnet',
      messages: [{ role: 'user', content: 'Hi' }],
      stream_options: { include_usage: true },
    })
    const final = await stream.finalChatCompletion()
    expect(final.choices[0]?.message.content?.length).toBeGreaterThan(0)
    expect(final.choices[0]?.finish_reason).toBe('stop')
    expect(final.usage?.total_tokens).toBe(
      (final.usage?.prompt_tokens ?? 0) + (final.usage?.completion_tokens ?? 0),
    )
  })

  it('streams tool calls with index, id, name and argument fragments', async () => {
    const { gateway: handler } = gateway()
    upstreams.anthropic = { kind: 'sse', frames: framesOf(fixture('anthropic/tool-use.sse')) }
    const final = await openAIClient(handler)
      .chat.completions.stream({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
          },
        ],
      })
      .finalChatCompletion()
    const call = final.choices[0]?.message.tool_calls?.[0]
    expect(call?.type).toBe('function')
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : 'null')).toBeTypeOf(
      'object',
    )
    expect(final.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('sends a tool result round trip as tool_use and tool_result blocks', async () => {
    const { gateway: handler } = gateway()
    await openAIClient(handler).chat.completions.create({
      model: 'claude-sonnet',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
            {
              id: 'functions.get_time:0',
              type: 'function',
              function: { name: 'get_time', arguments: '{"tz":"UTC"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'functions.get_time:0', content: 'noon' },
        { role: 'user', content: 'thanks' },
      ],
    })
    expect(lastAnthropicBody()['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} },
          { type: 'tool_use', id: 'functions_get_time_0', name: 'get_time', input: { tz: 'UTC' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_1',
            content: [{ type: 'text', text: 'sunny' }],
          },
          {
            type: 'tool_result',
            tool_use_id: 'functions_get_time_0',
            content: [{ type: 'text', text: 'noon' }],
          },
          { type: 'text', text: 'thanks' },
        ],
      },
    ])
  })

  it('answers an upstream 529 as 503 to the openai SDK', async () => {
    const { gateway: handler } = gateway()
    upstreams.anthropic = {
      kind: 'error',
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    }
    const error = await openAIClient(handler)
      .chat.completions.create({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error).toMatchObject({ status: 503, message: expect.stringContaining('Overloaded') })
  })

  it('throws after the partial text when the Anthropic stream reports an error', async () => {
    const { gateway: handler, meter } = gateway()
    upstreams.anthropic = {
      kind: 'sse',
      frames: anthropicTextFrames(['partial ', 'answer'], { failAfterText: true }),
    }
    const stream = await openAIClient(handler).chat.completions.create({
      model: 'claude-sonnet',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    let text = ''
    await expect(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    }).rejects.toThrow(/Overloaded/)
    expect(text).toBe('partial answer')
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })
})

describe('usage on translated paths', () => {
  it('records the usage seen so far when a messages client abandons a translated stream', async () => {
    const { gateway: handler, meter } = gateway()
    const { controlledStream } = await import('../helpers/upstream')
    const stream = controlledStream()
    openai.answer({ kind: 'controlled', stream })
    const frames = chatStreamFrames(['one ', 'two'])
    stream.push(frames[0]!)
    stream.push(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }], usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 } })}\n\n`,
    )
    const response = await handler(
      new Request(`${gatewayUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': keys.main, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          max_tokens: 50,
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      }),
    )
    const reader = response.body!.getReader()
    let seen = ''
    while (!seen.includes('partial')) seen += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(openai.lastCall().signal.aborted).toBe(true)
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'aborted',
      usage: { inputTokens: 40, outputTokens: 3, totalTokens: 43 },
    })
  })
})
