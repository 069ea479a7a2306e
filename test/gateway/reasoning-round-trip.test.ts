import Anthropic from '@anthropic-ai/sdk'
import { type Content, type Part } from '@google/genai'
import OpenAI from 'openai'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { base64ToUtf8, utf8ToBase64 } from '../../src/internal/base64'
import { maxReasoningCarrierLength } from '../../src/protocols/openai/reasoning-origin'
import { chatTurn } from '../helpers/chat-reasoning'
import { useFakeUpstreams } from '../helpers/fake-gateway'
import { handedOutReasoning } from '../helpers/fakes/openai-fake'
import { gatewayUrl, keys } from '../helpers/gateway'

/**
 * Reasoning an `openai`-group upstream hands out goes back to it (issue 18, ADR 0018): three-turn
 * tool loops — two turns of two parallel tool calls, then the answer — with the history exactly as
 * Claude Code (thinking blocks echoed), Gemini CLI (thought parts dropped, function calls with
 * their `thoughtSignature` kept), Codex (reasoning items echoed with `encrypted_content`) and a
 * chat-completions app (the message kept, `reasoning_content` and all) send it, through the
 * official SDKs, against fakes that enforce each server's rules: DeepSeek refuses a tool-call
 * turn whose `reasoning_content` is missing or altered; `house-reasoner-1` and `house-thinker-1`
 * (self-hosted models no table knows) answer in `reasoning` and `reasoning_content`, need it back
 * there and refuse the other member;
 * `house-chat-1` never reasons and refuses every reasoning member; MiniMax answers in
 * `reasoning_details` when asked with `reasoning_split`.
 */
const fakes = useFakeUpstreams({
  openai: [
    'deepseek-v4-pro',
    'deepseek-chat',
    'house-reasoner-1',
    'house-thinker-1',
    'house-chat-1',
    'MiniMax-M2',
    // One conversation, two models: a client switching aliases mid-session.
    { name: 'switch-to-chat', upstreamModel: 'house-chat-1' },
    { name: 'switch-to-deepseek', upstreamModel: 'deepseek-v4-pro' },
  ],
  anthropic: ['claude-haiku-4-5-20251001'],
  gemini: ['gemini-2.5-flash'],
})

type Field = 'reasoning_content' | 'reasoning' | 'reasoning_details'
const reasoningFields: readonly Field[] = ['reasoning_content', 'reasoning', 'reasoning_details']

/** The models that reason, and the field each hands its reasoning out in. */
const reasoners: ReadonlyArray<readonly [string, Field]> = [
  ['deepseek-v4-pro', 'reasoning_content'],
  ['deepseek-chat', 'reasoning_content'],
  ['house-reasoner-1', 'reasoning'],
  ['house-thinker-1', 'reasoning_content'],
  ['MiniMax-M2', 'reasoning_details'],
]

/** Three model turns, two calls in each tool-call turn (read by the fake model). */
const prompt = 'Fix the failing test in src/app.ts. [steps=3] [parallel]'

const readSchema = {
  type: 'object' as const,
  properties: { path: { type: 'string' } },
  required: ['path'],
}
const shellSchema = {
  type: 'object' as const,
  properties: { command: { type: 'string' } },
  required: ['command'],
}

/** One agent: runs the whole loop and returns the final answer's text. */
type Agent = (model: string, stream: boolean, history?: History) => Promise<string>

/** What an agent kept of a conversation, for tests that alter or continue it. */
type History = {
  claude?: Anthropic.MessageParam[]
  gemini?: Content[]
  codex?: ResponseInputItem[]
}

/**
 * Claude Code: streamed with budget 31,999 and max_tokens 32,000, its system prompt, thinking
 * blocks echoed. Unstreamed (as its side requests go) with 8,000 and 4,096: the SDK refuses a
 * non-streaming request that may take ten minutes.
 */
const claudeCode: Agent = async (model, stream, history = {}) => {
  const client = fakes.anthropicSdk()
  const messages = (history.claude ??= [
    { role: 'user', content: [{ type: 'text', text: prompt }] },
  ])
  for (let turn = 0; turn < 5; turn += 1) {
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: stream ? 32_000 : 8_000,
      thinking: { type: 'enabled', budget_tokens: stream ? 31_999 : 4_096 },
      system: [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." }],
      tools: [
        { name: 'Read', description: 'Reads a file.', input_schema: readSchema },
        { name: 'Bash', description: 'Runs a command.', input_schema: shellSchema },
      ],
      messages,
    }
    const answer = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params)
    messages.push({ role: 'assistant', content: answer.content })
    const calls = answer.content.filter((block) => block.type === 'tool_use')
    if (calls.length === 0)
      return answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    messages.push({
      role: 'user',
      content: calls.map((call) => ({
        type: 'tool_result' as const,
        tool_use_id: call.id,
        content: `output of ${call.name}`,
      })),
    })
  }
  throw new Error('The loop did not end.')
}

/** Gemini CLI: thought parts dropped from the history, function calls kept with their signature. */
const geminiCli: Agent = async (model, stream, history = {}) => {
  const genai = fakes.genaiSdk()
  const contents = (history.gemini ??= [{ role: 'user', parts: [{ text: prompt }] }])
  const config = {
    systemInstruction: 'You are an interactive CLI agent.',
    thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    tools: [
      {
        functionDeclarations: [
          { name: 'read_file', description: 'Reads a file.', parametersJsonSchema: readSchema },
          {
            name: 'run_shell_command',
            description: 'Runs a command.',
            parametersJsonSchema: shellSchema,
          },
        ],
      },
    ],
  }
  for (let turn = 0; turn < 5; turn += 1) {
    const parts: Part[] = []
    if (stream) {
      for await (const chunk of await genai.models.generateContentStream({
        model,
        contents,
        config,
      }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []))
    } else {
      const answer = await genai.models.generateContent({ model, contents, config })
      parts.push(...(answer.candidates?.[0]?.content?.parts ?? []))
    }
    contents.push({ role: 'model', parts: parts.filter((part) => part.thought !== true) })
    const calls = parts.flatMap((part) =>
      part.functionCall === undefined ? [] : [part.functionCall],
    )
    if (calls.length === 0)
      return parts.map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('')
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: {
          ...(call.id === undefined ? {} : { id: call.id }),
          name: call.name!,
          response: { output: `output of ${call.name}` },
        },
      })),
    })
  }
  throw new Error('The loop did not end.')
}

/** Codex: stateless (`store: false`), encrypted reasoning asked for, every output item echoed. */
const codex: Agent = async (model, stream, history = {}) => {
  const client = fakes.openaiSdk()
  const input = (history.codex ??= [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
  ])
  for (let turn = 0; turn < 5; turn += 1) {
    const params = {
      model,
      instructions: 'You are Codex, a coding agent.',
      input,
      tools: [
        { type: 'function' as const, name: 'read_file', parameters: readSchema, strict: false },
        { type: 'function' as const, name: 'shell', parameters: shellSchema, strict: false },
      ],
      tool_choice: 'auto' as const,
      parallel_tool_calls: true,
      reasoning: { effort: 'medium' as const, summary: 'auto' as const },
      store: false,
      include: ['reasoning.encrypted_content' as const],
    }
    const answer = stream
      ? await client.responses.stream(params).finalResponse()
      : await client.responses.create(params)
    input.push(...(answer.output as ResponseInputItem[]))
    const calls = answer.output.flatMap((item) => (item.type === 'function_call' ? [item] : []))
    if (calls.length === 0) return answer.output_text
    for (const call of calls)
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: `output of ${call.name}`,
      })
  }
  throw new Error('The loop did not end.')
}

/**
 * A chat-completions app (passthrough): the assistant message kept whole, its reasoning member
 * included; streamed, the reasoning deltas accumulated (`chatTurn`). DeepSeek's `deepseek-chat`
 * thinks when the app asks, in `extra_body` as DeepSeek documents.
 */
const chatApp: Agent = async (model, stream) => {
  const client = fakes.openaiSdk()
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  const extra = model === 'deepseek-chat' ? { thinking: { type: 'enabled' } } : {}
  for (let turn = 0; turn < 5; turn += 1) {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'read', parameters: readSchema } },
      { type: 'function', function: { name: 'shell', parameters: shellSchema } },
    ]
    const message = await chatTurn(client, { model, messages, tools, ...extra }, stream)
    messages.push(message as OpenAI.ChatCompletionMessageParam)
    if (message.tool_calls === undefined || message.tool_calls.length === 0)
      return message.content ?? ''
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'output' })
  }
  throw new Error('The loop did not end.')
}

const agents = { 'Claude Code': claudeCode, 'Gemini CLI': geminiCli, Codex: codex }

/** The bodies the openai upstream got since `before`, raw and parsed. */
function sentSince(before: number) {
  return fakes.calls.openai.slice(before).map((call) => ({
    raw: call.body,
    body: JSON.parse(call.body) as { messages: Array<Record<string, unknown>> } & Record<
      string,
      unknown
    >,
  }))
}

/**
 * Every upstream request after the first carries, on each earlier assistant message, exactly the
 * reasoning the model handed out with it — in the model's own field, byte for byte (the raw body
 * holds the same JSON string) — and no other reasoning member.
 */
function expectReasoningBack(before: number, handedBefore: number, field: Field): void {
  const sent = sentSince(before)
  const handed = handedOutReasoning().slice(handedBefore)
  expect(sent).toHaveLength(3)
  expect(handed).toHaveLength(3)
  sent.forEach(({ raw, body }, turn) => {
    const assistants = body.messages.filter((message) => message['role'] === 'assistant')
    expect(assistants).toHaveLength(turn)
    assistants.forEach((message, step) => {
      const text = handed[step]!
      if (field === 'reasoning_details') {
        const entry = {
          type: 'reasoning.text',
          id: 'reasoning-text-1',
          format: 'MiniMax-response-v1',
          index: 0,
          text,
        }
        expect(message['reasoning_details']).toEqual([entry])
        expect(raw).toContain(JSON.stringify(entry))
      } else {
        expect(message[field]).toBe(text)
        expect(raw).toContain(`"${field}":${JSON.stringify(text)}`)
      }
      for (const other of reasoningFields.filter((name) => name !== field))
        expect(message).not.toHaveProperty(other)
      expect(message['tool_calls']).toHaveLength(2)
    })
  })
}

describe.each(Object.entries(agents))('%s on an openai group', (_name, agent) => {
  describe.each(reasoners)('%s (reasoning in %s)', (model, field) => {
    it.each([false, true])(
      'runs a three-turn tool loop, the reasoning back byte for byte (stream: %s)',
      async (stream) => {
        const before = fakes.calls.openai.length
        const handedBefore = handedOutReasoning().length
        expect(await agent(model, stream)).toMatch(new RegExp(`^Answer from ${model} after `))
        expectReasoningBack(before, handedBefore, field)
        const first = sentSince(before)[0]!.body
        if (model === 'MiniMax-M2') expect(first['reasoning_split']).toBe(true)
        if (model === 'deepseek-chat') expect(first['thinking']).toEqual({ type: 'enabled' })
      },
    )
  })
})

describe('a Responses app chaining previous_response_id (store on, the default)', () => {
  it.each([false, true])(
    'gets deepseek-v4-pro its reasoning back from the response store (stream: %s)',
    async (stream) => {
      const client = fakes.openaiSdk()
      const before = fakes.calls.openai.length
      const handedBefore = handedOutReasoning().length
      const tools = [
        { type: 'function' as const, name: 'read_file', parameters: readSchema, strict: false },
        { type: 'function' as const, name: 'shell', parameters: shellSchema, strict: false },
      ]
      let input: ResponseInputItem[] = [{ role: 'user', content: prompt }]
      let previous: string | undefined
      for (let turn = 0; turn < 5; turn += 1) {
        const params = {
          model: 'deepseek-v4-pro',
          input,
          tools,
          ...(previous === undefined ? {} : { previous_response_id: previous }),
        }
        const answer = stream
          ? await client.responses.stream(params).finalResponse()
          : await client.responses.create(params)
        const calls = answer.output.flatMap((item) => (item.type === 'function_call' ? [item] : []))
        if (calls.length === 0) break
        previous = answer.id
        // Only the tool outputs are sent: the rest of the conversation is the store's.
        input = calls.map((call) => ({
          type: 'function_call_output' as const,
          call_id: call.call_id,
          output: 'output',
        }))
      }
      expectReasoningBack(before, handedBefore, 'reasoning_content')
    },
  )
})

describe('a chat-completions app on an openai group (passthrough)', () => {
  it.each([
    ['deepseek-v4-pro', false],
    ['deepseek-v4-pro', true],
    ['deepseek-chat', false],
    ['deepseek-chat', true],
    ['house-reasoner-1', false],
  ] as const)(
    '%s keeps the app’s own reasoning member untouched (stream: %s)',
    async (model, stream) => {
      const before = fakes.calls.openai.length
      const handedBefore = handedOutReasoning().length
      expect(await chatApp(model, stream)).toMatch(/^Answer from .* after output\.$/)
      expectReasoningBack(
        before,
        handedBefore,
        model === 'house-reasoner-1' ? 'reasoning' : 'reasoning_content',
      )
    },
  )

  it('relays the app’s bytes as they were written: escapes in reasoning_content stay escapes', async () => {
    const client = fakes.openaiSdk()
    const tools = [
      { type: 'function' as const, function: { name: 'read', parameters: readSchema } },
    ]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
    const first = await chatTurn(client, { model: 'deepseek-v4-pro', messages, tools }, false)
    const reasoning = first.reasoning_content!
    // Written by hand as some clients write JSON: every non-ASCII character as a \u escape.
    const escaped = JSON.stringify(reasoning).replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    const assistant = `{"role":"assistant","content":null,"reasoning_content":${escaped},"tool_calls":${JSON.stringify(first.tool_calls)}}`
    const results = first
      .tool_calls!.map((call) =>
        JSON.stringify({ role: 'tool', tool_call_id: call.id, content: 'x' }),
      )
      .join(',')
    const body = `{"model":"deepseek-v4-pro","messages":[{"role":"user","content":${JSON.stringify(prompt)}},${assistant},${results}],"tools":${JSON.stringify(tools)}}`
    const before = fakes.calls.openai.length
    const response = await fakes.fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(200)
    expect(fakes.calls.openai[before]!.body).toBe(body)
  })
})

describe('models the profile table does not know', () => {
  it('house-chat-1, which never reasons, gets no reasoning member in a Claude Code loop', async () => {
    const before = fakes.calls.openai.length
    expect(await claudeCode('house-chat-1', true)).toMatch(/^Answer from house-chat-1 after/)
    const sent = sentSince(before)
    expect(sent).toHaveLength(3)
    for (const { body } of sent)
      for (const message of body.messages)
        for (const field of reasoningFields) expect(message).not.toHaveProperty(field)
  })

  it.each(Object.entries(agents))(
    '%s: reasoning house-reasoner-1 handed out is not sent to house-chat-1 when the session switches',
    async (_name, agent) => {
      const history: History = {}
      await agent('house-reasoner-1', false, history)
      const before = fakes.calls.openai.length
      // The next task in the same session, on another alias.
      if (history.claude) history.claude.push({ role: 'user', content: `Now the docs. ${prompt}` })
      if (history.gemini)
        history.gemini.push({ role: 'user', parts: [{ text: `Docs. ${prompt}` }] })
      if (history.codex) history.codex.push({ role: 'user', content: `Docs. ${prompt}` })
      expect(await agent('switch-to-chat', false, history)).toMatch(/^Answer from house-chat-1/)
      for (const { body } of sentSince(before))
        for (const message of body.messages)
          for (const field of reasoningFields) expect(message).not.toHaveProperty(field)
    },
  )

  it('a DeepSeek model gets other models’ reasoning as its profile says, in reasoning_content', async () => {
    const history: History = {}
    await claudeCode('house-reasoner-1', false, history)
    const handed = handedOutReasoning().slice(-3)
    const before = fakes.calls.openai.length
    history.claude!.push({ role: 'user', content: `Next. ${prompt}` })
    expect(await claudeCode('switch-to-deepseek', false, history)).toMatch(/^Answer from deepseek/)
    const first = sentSince(before)[0]!.body
    const assistants = first.messages.filter((message) => message['role'] === 'assistant')
    expect(assistants.map((message) => message['reasoning_content'])).toEqual(handed)
    for (const message of assistants) expect(message).not.toHaveProperty('reasoning')
  })
})

describe('carriers a client altered or swelled: a 400 in its own protocol, nothing sent upstream', () => {
  const tools = [{ name: 'Read', description: 'Reads a file.', input_schema: readSchema }]
  const oversized = 'A'.repeat(maxReasoningCarrierLength)

  /** Claude Code's first turn on deepseek-v4-pro, and its history so far. */
  async function claudeFirstTurn() {
    const client = fakes.anthropicSdk()
    const ask = (messages: Anthropic.MessageParam[]) =>
      client.messages.create({ model: 'deepseek-v4-pro', max_tokens: 8_000, tools, messages })
    const user: Anthropic.MessageParam = { role: 'user', content: prompt }
    const answer = await ask([user])
    const call = answer.content.find((block) => block.type === 'tool_use')!
    const result: Anthropic.MessageParam = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: call.id, content: 'x' }],
    }
    return { ask, user, answer, result }
  }

  it.each([
    [
      'an edited thinking text',
      (block: Anthropic.ThinkingBlock) => ({ ...block, thinking: `${block.thinking} ` }),
    ],
    [
      'a cut signature',
      (block: Anthropic.ThinkingBlock) => ({ ...block, signature: block.signature.slice(0, -6) }),
    ],
    [
      'an unknown gateway tag',
      (block: Anthropic.ThinkingBlock) => ({ ...block, signature: 'gw1.x' }),
    ],
    [
      'a signature past the bound',
      (block: Anthropic.ThinkingBlock) => ({ ...block, signature: `gw1.o.${oversized}` }),
    ],
  ])('Claude Code: %s', async (_case, alter) => {
    const { ask, user, answer, result } = await claudeFirstTurn()
    const [thinking, ...rest] = answer.content
    expect(thinking).toMatchObject({
      type: 'thinking',
      signature: expect.stringMatching(/^gw1\.o\./),
    })
    const altered = [alter(thinking as Anthropic.ThinkingBlock), ...rest]
    const before = fakes.calls.openai.length
    const error = await ask([user, { role: 'assistant', content: altered }, result]).catch(
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('messages[1].content[0].signature'),
      },
    })
    expect(fakes.calls.openai.length).toBe(before)
  })

  it.each([
    [
      'an edited carrier',
      (signature: string) => utf8ToBase64(base64ToUtf8(signature)!.replace('Thinking', 'Thunking')),
    ],
    ['a cut carrier', (signature: string) => signature.slice(0, -12)],
    ['a carrier past the bound', () => `Z3d0aGluazE6${oversized}`],
  ])('Gemini CLI: %s', async (_case, alter) => {
    const genai = fakes.genaiSdk()
    const config = {
      tools: [{ functionDeclarations: [{ name: 'read_file', parametersJsonSchema: readSchema }] }],
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    }
    const contents: Content[] = [{ role: 'user', parts: [{ text: prompt }] }]
    const first = await genai.models.generateContent({ model: 'deepseek-v4-pro', contents, config })
    const parts = (first.candidates?.[0]?.content?.parts ?? []).filter(
      (part) => part.thought !== true,
    )
    const call = parts.find((part) => part.functionCall !== undefined)!
    expect(call.thoughtSignature).toMatch(/^Z3d0aGluazE6/)
    call.thoughtSignature = alter(call.thoughtSignature!)
    contents.push({ role: 'model', parts })
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: call.functionCall!.id,
            name: 'read_file',
            response: { output: 'x' },
          },
        },
      ],
    })
    const before = fakes.calls.openai.length
    const error = await genai.models
      .generateContent({ model: 'deepseek-v4-pro', contents, config })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 400 })
    const body = JSON.parse((error as Error).message)
    expect(body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } })
    expect(body.error.message).toContain('contents[1].parts[0].thoughtSignature')
    expect(fakes.calls.openai.length).toBe(before)
  })

  it.each([
    [
      'an edited blob',
      (blob: string) => blob.slice(0, 20) + (blob[20] === 'A' ? 'B' : 'A') + blob.slice(21),
    ],
    ['a cut blob', (blob: string) => blob.slice(0, -9)],
    ['a blob past the bound', () => `gwr1.${oversized}`],
  ])('Codex: %s', async (_case, alter) => {
    const client = fakes.openaiSdk()
    const params = {
      model: 'deepseek-v4-pro',
      tools: [
        { type: 'function' as const, name: 'read_file', parameters: readSchema, strict: false },
      ],
      store: false,
      include: ['reasoning.encrypted_content' as const],
    }
    const input: ResponseInputItem[] = [{ role: 'user', content: prompt }]
    const first = await client.responses.create({ ...params, input })
    const reasoning = first.output.find((item) => item.type === 'reasoning')!
    expect(reasoning.encrypted_content).toMatch(/^gwr1\./)
    const call = first.output.find((item) => item.type === 'function_call')!
    input.push({ ...reasoning, encrypted_content: alter(reasoning.encrypted_content!) }, call, {
      type: 'function_call_output',
      call_id: call.call_id,
      output: 'x',
    })
    const before = fakes.calls.openai.length
    const error = await client.responses
      .create({ ...params, input })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'input[1].encrypted_content',
    })
    expect(fakes.calls.openai.length).toBe(before)
  })
})

describe('a session moving to an anthropic group', () => {
  it('Claude Code switching to Claude: the gateway’s tags never reach Anthropic (passthrough)', async () => {
    const history: History = {}
    await claudeCode('deepseek-v4-pro', true, history)
    history.claude!.push({ role: 'user', content: 'Thanks. Summarise what you did.' })
    const answer = await fakes.anthropicSdk().messages.create({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 8_000,
      messages: history.claude!,
    })
    expect(answer.content.some((block) => block.type === 'text')).toBe(true)
    const sent = fakes.lastBody('anthropic')
    expect(JSON.stringify(sent)).not.toContain('"gw1.')
    for (const message of sent['messages'])
      if (Array.isArray(message.content))
        for (const block of message.content) expect(block.type).not.toBe('thinking')
  })
})
