import { describe, expect, it } from 'vitest'
import type { ChatRequest, Message, ReasoningPart } from '../../../src/canonical/types'
import { resolveModelProfile } from '../../../src/models/match-profile'
import type { ModelProfileOverrides } from '../../../src/models/profile'
import { reasoningOriginSignature } from '../../../src/protocols/openai/reasoning-origin'
import { encodeOpenAIRequest } from '../../../src/protocols/openai/request-encode'

/** The assistant messages of the body encoded for `model` (the upstream model name). */
function assistants(model: string, reasoning: ReasoningPart[], overrides?: ModelProfileOverrides) {
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
    {
      role: 'assistant',
      content: [...reasoning, { type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', content: [] }],
    },
  ]
  const request: ChatRequest = { model, messages, stream: false }
  const body = encodeOpenAIRequest(request, {
    profile: resolveModelProfile(model, overrides),
    adjustments: [],
  })
  return (body['messages'] as Array<Record<string, unknown>>).filter(
    (message) => message['role'] === 'assistant',
  )
}

const text = 'Read it first — “then” 🧠\n'
const own = (
  model: string,
  field: Parameters<typeof reasoningOriginSignature>[0] = 'reasoning_content',
) => ({ type: 'reasoning', text, signature: reasoningOriginSignature(field, model, text) }) as const

describe('reasoning back to an OpenAI-compatible upstream (ADR 0018)', () => {
  it('gives a model its own reasoning back, whatever its name, in the field it came in', () => {
    expect(assistants('acme-thinker-9', [own('acme-thinker-9')])[0]).toMatchObject({
      reasoning_content: text,
    })
    const [viaReasoning] = assistants('acme-thinker-9', [own('acme-thinker-9', 'reasoning')])
    expect(viaReasoning).toMatchObject({ reasoning: text })
    expect(viaReasoning).not.toHaveProperty('reasoning_content')
  })

  it('restores reasoning_details as the entry it came in, the text in place', () => {
    const detail = {
      type: 'reasoning.text',
      id: 'reasoning-text-1',
      format: 'MiniMax-response-v1',
      index: 0,
    }
    const part: ReasoningPart = {
      type: 'reasoning',
      text,
      signature: reasoningOriginSignature('reasoning_details', 'MiniMax-M2', text, detail),
    }
    expect(assistants('MiniMax-M2', [part])[0]!['reasoning_details']).toEqual([{ ...detail, text }])
  })

  it('gives an unknown model nothing it did not hand out itself', () => {
    for (const reasoning of [
      own('another-model'),
      { type: 'reasoning', text } as const,
      { type: 'reasoning', text, signature: { protocol: 'anthropic', value: 'EqQB' } } as const,
    ]) {
      const [message] = assistants('acme-thinker-9', [reasoning])
      expect(Object.keys(message!)).toEqual(['role', 'content', 'tool_calls'])
    }
  })

  it('gives other reasoning to a model whose profile takes it back, in the profile’s field', () => {
    expect(assistants('deepseek-v4-pro', [own('kimi-k2-thinking')])[0]).toMatchObject({
      reasoning_content: text,
    })
    expect(
      assistants('MiniMax-M2', [{ type: 'reasoning', text }])[0]!['reasoning_details'],
    ).toEqual([{ type: 'reasoning.text', text }])
    const overridden = assistants('acme-thinker-9', [{ type: 'reasoning', text }], {
      reasoningHistory: true,
      reasoningField: 'reasoning',
    })
    expect(overridden[0]).toMatchObject({ reasoning: text })
  })

  it('prefers the model’s own reasoning to anything else in the same message', () => {
    const [message] = assistants('deepseek-v4-pro', [
      { type: 'reasoning', text: 'shown thought' },
      own('deepseek-v4-pro'),
    ])
    expect(message!['reasoning_content']).toBe(text)
  })

  it('asks MiniMax for reasoning_split and GLM-4.7 for preserved thinking', () => {
    const body = (model: string, request: Partial<ChatRequest> = {}) =>
      encodeOpenAIRequest(
        {
          model,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
          stream: false,
          ...request,
        },
        { profile: resolveModelProfile(model), adjustments: [] },
      )
    expect(body('MiniMax-M2.5')).toMatchObject({ reasoning_split: true })
    expect(body('deepseek-v4-pro')).not.toHaveProperty('reasoning_split')
    expect(body('glm-4.7', { reasoning: { effort: 'high' } })['thinking']).toEqual({
      type: 'enabled',
      clear_thinking: false,
    })
    expect(body('glm-4.7', { reasoning: { effort: 'none' } })['thinking']).toEqual({
      type: 'disabled',
    })
    expect(body('glm-4.6', { reasoning: { effort: 'high' } })['thinking']).toEqual({
      type: 'enabled',
    })
  })
})
