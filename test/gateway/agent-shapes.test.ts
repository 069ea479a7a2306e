import type Anthropic from '@anthropic-ai/sdk'
import type { Content } from '@google/genai'
import { describe, expect, it } from 'vitest'
import { useFakeUpstreams } from '../helpers/fake-gateway'

/**
 * The requests the real coding agents send, against the groups they are commonly pointed at:
 * Claude Code with its model names aliased to Gemini 2.5 Flash or GPT-5, and Gemini CLI against
 * an anthropic group. Each runs two turns of a tool loop against the rule-enforcing fakes.
 */
const fakes = useFakeUpstreams({
  openai: [{ name: 'claude-haiku-4-5-20251001', upstreamModel: 'gpt-5' }],
  anthropic: [{ name: 'gemini-2.5-pro', upstreamModel: 'claude-sonnet-4-6' }],
  gemini: [{ name: 'claude-sonnet-4-6', upstreamModel: 'gemini-2.5-flash' }],
})

/** Claude Code's tool list, trimmed: JSON Schema with `$schema` and `additionalProperties`. */
const claudeCodeTools: Anthropic.Tool[] = [
  {
    name: 'Bash',
    description: 'Executes a given bash command.',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command to execute' },
        timeout: { type: 'number', description: 'Optional timeout in milliseconds' },
      },
      required: ['command'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  },
]

/** Two turns as Claude Code sends them: budget 31,999, max_tokens 32,000, streamed, history kept. */
async function claudeCodeLoop(model: string): Promise<string> {
  const client = fakes.anthropicSdk()
  const messages: Anthropic.MessageParam[] = [
    { role: 'user', content: [{ type: 'text', text: 'List the files here.' }] },
  ]
  const ask = () =>
    client.messages
      .stream({
        model,
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 31_999 },
        system: [
          {
            type: 'text',
            text: "You are Claude Code, Anthropic's official CLI for Claude.",
            cache_control: { type: 'ephemeral' },
          },
        ],
        tools: claudeCodeTools,
        metadata: { user_id: 'user_abc_account_def_session_ghi' },
        messages,
      })
      .finalMessage()
  const first = await ask()
  const call = first.content.find((block) => block.type === 'tool_use')
  expect(call?.name).toBe('Bash')
  messages.push({ role: 'assistant', content: first.content })
  messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'README.md\nsrc' }],
  })
  const second = await ask()
  return second.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

describe('Claude Code against a gemini group (gemini-2.5-flash)', () => {
  it('clamps the 31,999 thinking budget to 24,576 and runs the loop', async () => {
    const before = fakes.calls.gemini.length
    expect(await claudeCodeLoop('claude-sonnet-4-6')).toMatch(/^Answer from/)
    const [first, second] = fakes.calls.gemini.slice(before).map((call) => JSON.parse(call.body))
    expect(first.generationConfig).toEqual({
      maxOutputTokens: 32_000,
      thinkingConfig: { thinkingBudget: 24_576, includeThoughts: true },
    })
    // The thinking Claude Code kept (tagged by the gateway) is not sent to Gemini.
    expect(JSON.stringify(second.contents)).not.toContain('gw1.')
    expect(fakes.events().at(-1)?.adjustments).toContainEqual({
      field: 'generationConfig.thinkingConfig.thinkingBudget',
      change: 'clamped',
      from: 31_999,
      to: 24_576,
      reason: 'gemini-2.5-flash takes thinking budgets of 1–24576',
    })
  })
})

describe('Claude Code against an openai group (gpt-5)', () => {
  it('sends max_completion_tokens and a reasoning effort gpt-5 takes, and runs the loop', async () => {
    const before = fakes.calls.openai.length
    expect(await claudeCodeLoop('claude-haiku-4-5-20251001')).toMatch(/^Answer from/)
    const first = JSON.parse(fakes.calls.openai[before]!.body)
    expect(first).toMatchObject({
      model: 'gpt-5',
      max_completion_tokens: 32_000,
      reasoning_effort: 'high',
    })
    expect(first).not.toHaveProperty('max_tokens')
    expect(first).not.toHaveProperty('temperature')
  })
})

describe('Gemini CLI against an anthropic group (claude-sonnet-4-6)', () => {
  it('turns no thinking on from includeThoughts alone, and runs two turns keeping no thoughts', async () => {
    const genai = fakes.genaiSdk()
    const config = {
      systemInstruction: 'You are an interactive CLI agent.',
      thinkingConfig: { includeThoughts: true },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'list_directory',
              description: 'Lists a directory.',
              parametersJsonSchema: {
                type: 'object',
                properties: { path: { type: 'string' } },
                required: ['path'],
              },
            },
          ],
        },
      ],
    }
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is in this folder?' }] }]
    const before = fakes.calls.anthropic.length
    const first = await genai.models.generateContent({ model: 'gemini-2.5-pro', contents, config })
    const call = first.functionCalls?.[0]
    expect(call?.name).toBe('list_directory')
    contents.push({
      role: 'model',
      parts: (first.candidates?.[0]?.content?.parts ?? []).filter((part) => part.thought !== true),
    })
    contents.push({
      role: 'user',
      parts: [{ functionResponse: { name: call!.name!, response: { output: 'README.md' } } }],
    })
    const second = await genai.models.generateContent({ model: 'gemini-2.5-pro', contents, config })
    expect(second.text).toMatch(/^Answer from claude-sonnet-4-6/)
    const sent = fakes.calls.anthropic.slice(before).map((request) => JSON.parse(request.body))
    expect(sent).toHaveLength(2)
    // Turn 1 leaves thinking to the model's default (off on Sonnet 4.6); turn 2, whose tool call
    // has no thinking before it, is sent with thinking explicitly off, which every model that can
    // turn it off accepts.
    expect(sent[0]).not.toHaveProperty('thinking')
    expect(sent[1].thinking).toEqual({ type: 'disabled' })
  })
})
