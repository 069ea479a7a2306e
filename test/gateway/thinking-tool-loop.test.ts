import type Anthropic from '@anthropic-ai/sdk'
import { Type, type Content, type Part } from '@google/genai'
import type OpenAI from 'openai'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { chatTurn } from '../helpers/chat-reasoning'
import { useFakeUpstreams, type GroupKind } from '../helpers/fake-gateway'

/**
 * A tool loop of two turns with thinking asked for, in every client × group cell — the four client
 * protocols (chat completions, messages, Gemini native, Responses) against the four group kinds
 * (openai, anthropic, gemini, and an openai group whose upstream is marked `responses: true`) —
 * for several model families per vendor, through the official SDKs and against the rule-enforcing
 * fakes: turn 1 asks and gets a tool call, turn 2 sends the tool result back (with whatever the
 * client keeps of turn 1) and gets the answer. Any field a model refuses, any lost signature,
 * thinking block or encrypted reasoning, fails the cell with the vendor's own 400.
 */

const models: Record<GroupKind, string[]> = {
  openai: ['gpt-4.1', 'o3', 'gpt-5', 'gpt-5.1', 'deepseek-chat', 'deepseek-reasoner'],
  anthropic: ['claude-haiku-4-5-20251001', 'claude-sonnet-4-6', 'claude-opus-4-7'],
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-flash-preview', 'gemini-3-pro-preview'],
  responses: ['gpt-4o', 'o4-mini', 'gpt-5-mini', 'gpt-5.2'],
}
/** Models that refuse reasoning fields: a client asking one of them directly asks for none. */
const nonReasoning = new Set(['gpt-4.1', 'gpt-4o', 'deepseek-chat', 'deepseek-reasoner'])
const fakes = useFakeUpstreams(models)
const { calls, lastBody } = fakes

const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/**
 * How each SDK runs the loop; returns the final answer's text. `direct`: the client speaks the
 * group's protocol (passthrough), so it asks the model only what the model takes.
 */
type Loop = (model: string, stream: boolean, direct?: boolean) => Promise<string>

const openaiLoop: Loop = async (model, stream, direct) => {
  const client = fakes.openaiSdk()
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: weather.name,
        description: weather.description,
        parameters: weather.schema,
      },
    },
  ]
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'user', content: 'What is the weather in Paris?' },
  ]
  // Straight to OpenAI (passthrough) a client asks gpt-4.1 for no reasoning, which OpenAI
  // refuses there; across protocols the other clients always ask, and the gateway fits it.
  const reasoning =
    direct === true && nonReasoning.has(model) ? {} : { reasoning_effort: 'high' as const }
  const ask = () => chatTurn(client, { model, messages, tools, ...reasoning }, stream)
  const first = await ask()
  expect(first.tool_calls).toHaveLength(1)
  // The whole message goes back, as apps do (with any `reasoning_content` the gateway added).
  messages.push(first as OpenAI.ChatCompletionMessageParam)
  for (const call of first.tool_calls ?? [])
    messages.push({ role: 'tool', tool_call_id: call.id, content: 'Sunny, 24°C' })
  return (await ask()).content ?? ''
}

const anthropicLoop: Loop = async (model, stream) => {
  const client = fakes.anthropicSdk()
  const messages: Anthropic.MessageParam[] = [
    { role: 'user', content: 'What is the weather in Paris?' },
  ]
  // Claude Code asks as the model takes it: adaptive thinking where manual budgets are refused.
  const thinking: Anthropic.ThinkingConfigParam = /opus-4-7|sonnet-4-6/.test(model)
    ? { type: 'adaptive' }
    : { type: 'enabled', budget_tokens: 2048 }
  const ask = async () => {
    const params = {
      model,
      max_tokens: 8000,
      thinking,
      tools: [
        {
          name: weather.name,
          description: weather.description,
          input_schema: weather.schema as Anthropic.Tool.InputSchema,
        },
      ],
      messages,
    }
    return stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params)
  }
  const first = await ask()
  const call = first.content.find((block) => block.type === 'tool_use')
  expect(call).toBeDefined()
  messages.push({ role: 'assistant', content: first.content })
  messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'Sunny, 24°C' }],
  })
  const second = await ask()
  return second.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

/**
 * The Gemini SDK's loop. `keepThoughts: false` is Gemini CLI's way: thought parts are dropped from
 * the history, function calls (with their signatures) kept.
 */
const geminiLoop =
  (keepThoughts: boolean): Loop =>
  async (model, stream) => {
    const genai = fakes.genaiSdk()
    const config = {
      tools: [
        {
          functionDeclarations: [
            {
              name: weather.name,
              description: weather.description,
              parameters: {
                type: Type.OBJECT,
                properties: { city: { type: Type.STRING } },
                required: ['city'],
              },
            },
          ],
        },
      ],
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    }
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
    ]
    const ask = async (): Promise<Part[]> => {
      if (!stream) {
        const response = await genai.models.generateContent({ model, contents, config })
        return response.candidates?.[0]?.content?.parts ?? []
      }
      const parts: Part[] = []
      for await (const chunk of await genai.models.generateContentStream({
        model,
        contents,
        config,
      }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []))
      return parts
    }
    const first = await ask()
    const call = first.find((part) => part.functionCall !== undefined)?.functionCall
    expect(call?.name).toBe(weather.name)
    const kept = keepThoughts ? first : first.filter((part) => part.thought !== true)
    contents.push({ role: 'model', parts: kept })
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            name: call!.name!,
            ...(call!.id === undefined ? {} : { id: call!.id }),
            response: { result: 'Sunny, 24°C' },
          },
        },
      ],
    })
    return (await ask()).map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('')
  }

/**
 * The Responses loop, as Codex runs it: stateless (`store: false`), the encrypted reasoning asked
 * for, and every output item of turn 1 sent back with the tool output.
 */
const responsesLoop: Loop = async (model, stream, direct) => {
  const client = fakes.openaiSdk()
  const tools = [
    {
      type: 'function' as const,
      name: weather.name,
      description: weather.description,
      parameters: weather.schema,
      strict: false,
    },
  ]
  const input: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }]
  const reasoning =
    direct === true && nonReasoning.has(model)
      ? {}
      : { reasoning: { effort: 'high' as const, summary: 'auto' as const } }
  const ask = async () => {
    const params = {
      model,
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content' as const],
      ...reasoning,
    }
    return stream
      ? await client.responses.stream(params).finalResponse()
      : await client.responses.create(params)
  }
  const first = await ask()
  const call = first.output.find((item) => item.type === 'function_call')
  expect(call).toMatchObject({ name: weather.name, status: 'completed' })
  if (call?.type !== 'function_call') throw new Error('no function call')
  input.push(...(first.output as ResponseInputItem[]))
  input.push({ type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 24°C' })
  return (await ask()).output_text
}

const loops: Record<GroupKind, Loop> = {
  openai: openaiLoop,
  anthropic: anthropicLoop,
  gemini: geminiLoop(true),
  responses: responsesLoop,
}

const kinds: GroupKind[] = ['openai', 'anthropic', 'gemini', 'responses']
const cells = kinds.flatMap((client) =>
  kinds.flatMap((group) => models[group].map((model) => [client, group, model] as const)),
)

describe.each(cells)('%s client × %s group, %s, thinking asked for', (client, group, model) => {
  it.each([false, true])('runs a two-turn tool loop (stream: %s)', async (stream) => {
    const before = calls[group].length
    const answer = await loops[client](model, stream, client === group)
    expect(answer).toMatch(/^Answer from /)
    expect(calls[group].length - before).toBe(2)
    const sent = lastBody(group)
    if (group === 'anthropic') {
      const assistant = sent['messages'].findLast((message: any) => message.role === 'assistant')
      if (client === 'openai') {
        // OpenAI clients cannot keep signed thinking: turn 2 goes with thinking off, said so.
        expect(sent['thinking']).toEqual({ type: 'disabled' })
        expect(fakes.events().at(-1)?.adjustments).toContainEqual(
          expect.objectContaining({ field: 'thinking', change: 'disabled' }),
        )
      } else {
        // Anthropic clients keep it; Gemini clients bring it back in the call's signature.
        expect(sent['thinking']?.type).not.toBe('disabled')
        expect(assistant.content[0].type).toBe('thinking')
      }
    }
    if (group === 'gemini' && model.startsWith('gemini-3')) {
      // Gemini 3's own signature came back on the call, whatever the client kept.
      const turn = sent['contents'].find((content: any) => content.role === 'model')
      const signature = turn.parts.find((part: any) => part.functionCall).thoughtSignature
      expect(signature).toMatch(/^ZmFrZS1nZW1pbmktc2lnbmF0dXJl/)
    }
    if (group === 'responses') {
      // Asked as the model takes it: reasoning only to reasoning models, every turn.
      if (nonReasoning.has(model)) expect(sent['reasoning']?.['effort'] ?? null).toBeNull()
      else expect(sent['reasoning']?.['effort']).toEqual(expect.any(String))
      // OpenAI's own encrypted reasoning went back only where the client could keep it.
      const reasoning = sent['input'].filter((item: any) => item.type === 'reasoning')
      if (client === 'responses' && !nonReasoning.has(model))
        expect(reasoning[0]?.['encrypted_content']).toMatch(/^gAAAA/)
      for (const item of reasoning) expect(item['encrypted_content']).toMatch(/^gAAAA/)
    }
  })
})

describe('Gemini CLI-shaped loop against an anthropic group (no thought parts kept)', () => {
  it.each(models.anthropic)('%s: the thinking travels in the call signature', async (model) => {
    const answer = await geminiLoop(false)(model, true)
    expect(answer).toMatch(/^Answer from /)
    const sent = lastBody('anthropic')
    const assistant = sent['messages'].findLast((message: any) => message.role === 'assistant')
    expect(assistant.content.map((block: any) => block.type)).toEqual(['thinking', 'tool_use'])
  })
})
