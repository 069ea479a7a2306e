import { describe, expect, it } from 'vitest'
import { createGateway, type UpstreamCall, type UpstreamProvider } from '../../src/index'
import { gatewayUrl, keys } from '../helpers/gateway'

/**
 * JSON inside strings the gateway parses is held to the body's nesting limit (128): a client's
 * tool-call `arguments` or tool result nested thousands deep is a 400 naming the field, an
 * upstream's a 502, never a stack overflow and a 500.
 */

const deep = (depth: number) => '{"a":' + '['.repeat(depth) + '1' + ']'.repeat(depth) + '}'

function gatewayTo(protocol: 'anthropic' | 'gemini' | 'openai', answer?: () => Response) {
  const calls: UpstreamCall[] = []
  const provider: UpstreamProvider = {
    id: 'up',
    protocol,
    send: async (call) => {
      calls.push(call)
      if (answer === undefined) throw new Error('The request should not have been sent.')
      return answer()
    },
  }
  const gateway = createGateway({
    groups: [{ id: 'g', protocol, models: ['m'], upstreams: [provider] }],
    keys: [{ key: keys.main }],
  })
  return { gateway, calls }
}

function chat(messages: unknown[]) {
  return new Request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages }),
  })
}

const toolTurn = (args: string, result: string) => [
  { role: 'user', content: 'Look it up.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: args } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: result },
]

describe('JSON nested inside strings', () => {
  it.each(['anthropic', 'gemini'] as const)(
    'a chat request to a %s group with tool-call arguments 10,000 deep: 400 naming the field',
    async (protocol) => {
      const { gateway, calls } = gatewayTo(protocol)
      const answer = await gateway(chat(toolTurn(deep(10_000), 'done')))
      expect(answer.status).toBe(400)
      const body = (await answer.json()) as { error: { message: string } }
      expect(body.error.message).toContain("a tool call's arguments")
      expect(body.error.message).toContain('128 levels')
      expect(calls).toHaveLength(0)
    },
  )

  it('a tool result that is JSON 10,000 deep, to a Gemini group: 400 naming the field', async () => {
    const { gateway, calls } = gatewayTo('gemini')
    const answer = await gateway(chat(toolTurn('{}', deep(10_000))))
    expect(answer.status).toBe(400)
    const body = (await answer.json()) as { error: { message: string } }
    expect(body.error.message).toContain("a tool result's content")
    expect(calls).toHaveLength(0)
  })

  it('within the limit, the same requests are served', async () => {
    const { gateway } = gatewayTo('anthropic', () =>
      Response.json({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [{ type: 'text', text: 'Done.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      }),
    )
    const answer = await gateway(chat(toolTurn(deep(100), deep(100))))
    expect(answer.status).toBe(200)
  })

  it('an upstream whose tool-call arguments nest 10,000 deep, to an Anthropic client: 502', async () => {
    const { gateway } = gatewayTo('openai', () =>
      Response.json({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_763_000_000,
        model: 'm',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              refusal: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'lookup', arguments: deep(10_000) },
                },
              ],
            },
            finish_reason: 'tool_calls',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      }),
    )
    const answer = await gateway(
      new Request(`${gatewayUrl}/v1/messages`, {
        method: 'POST',
        headers: {
          'x-api-key': keys.main,
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'Look it up.' }],
        }),
      }),
    )
    expect(answer.status).toBe(502)
    const body = (await answer.json()) as { type: string; error: { message: string } }
    expect(body.type).toBe('error')
    expect(body.error.message).toContain("a tool call's arguments")
  })
})
