import { openAIReasoningRules, openAIRules, type OpenAIReasoningRules } from './fake-models'
import { sampleOf, schemaInInstruction } from './schema-sample'
import { strictSchemaProblem } from './strict-schema'
import { openAIError, type FakeError } from './vendor-errors'

type Body = Record<string, any>

/**
 * The rules OpenAI's chat completions enforce that translation can break, with OpenAI's own
 * messages: reasoning models refuse `max_tokens` and non-default sampling (GPT-5.1 and later take
 * sampling with effort `none`); `reasoning_effort` is refused by models that do not reason and
 * limited to each model's values; output limits are capped per model; JSON mode needs the word
 * "json" in the messages; `json_schema` needs a valid name; tool messages answer earlier calls,
 * every call is answered, and ids are at most 40 characters. OpenAI-compatible reasoning models
 * add theirs (`openAIReasoningRules`): DeepSeek's thinking mode refuses an assistant message with
 * tool calls whose `reasoning_content` is missing or is not what the model returned; strict
 * servers refuse members they do not know.
 *
 * @returns the error OpenAI would answer with, or `undefined` for a valid request
 */
export function checkOpenAIRequest(body: Body): FakeError | undefined {
  const model = String(body['model'] ?? '')
  const rules = openAIRules(model)
  if (rules?.reasoning === true && body['max_tokens'] !== undefined) {
    return openAIError(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    )
  }
  const effort = body['reasoning_effort']
  if (effort !== undefined && rules !== undefined) {
    if (rules.efforts === undefined)
      return openAIError(
        "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        'reasoning_effort',
        'unsupported_parameter',
      )
    if (!rules.efforts.includes(effort))
      return openAIError(
        `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${rules.efforts.map((value) => `'${value}'`).join(', ')}.`,
        'reasoning_effort',
        'unsupported_value',
      )
  }
  if (rules?.reasoning === true) {
    const samplingAllowed = rules.samplingWithoutReasoning === true && (effort ?? 'none') === 'none'
    for (const field of ['temperature', 'top_p'] as const) {
      if (body[field] !== undefined && body[field] !== 1 && !samplingAllowed)
        return openAIError(
          `Unsupported value: '${field}' does not support ${body[field]} with this model. Only the default (1) value is supported.`,
          field,
          'unsupported_value',
        )
    }
  }
  const limit = body['max_completion_tokens'] ?? body['max_tokens']
  if (rules !== undefined && typeof limit === 'number' && limit > rules.maxOutput) {
    return openAIError(
      `max_tokens is too large: ${limit}. This model supports at most ${rules.maxOutput} completion tokens, whereas you provided ${limit}.`,
      body['max_completion_tokens'] === undefined ? 'max_tokens' : 'max_completion_tokens',
      'invalid_value',
    )
  }
  if (body['thinking'] !== undefined && rules !== undefined && rules.thinkingToggle !== true)
    return openAIError('Unrecognized request argument supplied: thinking', null, null)
  return (
    checkFormat(body, rules?.jsonModeOnly === true) ??
    checkMessages(body, openAIReasoningRules(model, body))
  )
}

function checkFormat(body: Body, jsonModeOnly: boolean): FakeError | undefined {
  const format = body['response_format']
  if (format === undefined) return undefined
  if (format.type === 'json_object') {
    if (!JSON.stringify(body['messages']).toLowerCase().includes('json'))
      return openAIError(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        'messages',
        null,
      )
    return undefined
  }
  if (format.type === 'json_schema') {
    if (jsonModeOnly)
      return openAIError('This response_format type is unavailable now', 'response_format', null)
    const name = format.json_schema?.name
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      return openAIError(
        "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        'response_format.json_schema.name',
        'invalid_value',
      )
    if (typeof format.json_schema?.schema !== 'object')
      return openAIError(
        "Missing required parameter: 'response_format.json_schema.schema'.",
        'response_format.json_schema.schema',
        'missing_required_parameter',
      )
    const problem =
      format.json_schema.strict === true
        ? strictSchemaProblem(format.json_schema.schema)
        : undefined
    if (problem !== undefined)
      return openAIError(
        `Invalid schema for response_format '${name}': In context=(), ${problem}`,
        'response_format',
        'invalid_json_schema',
      )
  }
  return undefined
}

/** Every reasoning text the fake models handed out, to tell reasoning sent back from altered. */
const handedOut = new Set<string>()
/** The same, in the order the answers were given. */
const handedOutInOrder: string[] = []

/** The reasoning texts the fake models handed out so far, oldest first. */
export function handedOutReasoning(): readonly string[] {
  return handedOutInOrder
}

function checkMessages(
  body: Body,
  reasoning: OpenAIReasoningRules | undefined,
): FakeError | undefined {
  const messages: Body[] = Array.isArray(body['messages']) ? body['messages'] : []
  let open: string[] = []
  for (const [index, message] of messages.entries()) {
    if (message['role'] === 'tool') {
      const id = message['tool_call_id']
      if (!open.includes(id))
        return openAIError(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
          null,
        )
      open = open.filter((pending) => pending !== id)
      continue
    }
    if (open.length > 0)
      return openAIError(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
        `messages.[${index}].role`,
        null,
      )
    const refused = checkReasoningMembers(message, index, reasoning)
    if (refused !== undefined) return refused
    for (const [callIndex, call] of (message['tool_calls'] ?? []).entries()) {
      if (String(call.id).length > 40)
        return openAIError(
          `Invalid 'messages[${index}].tool_calls[${callIndex}].id': string too long. Expected a string with maximum length 40, but got a string with length ${String(call.id).length} instead.`,
          `messages[${index}].tool_calls[${callIndex}].id`,
          'string_above_max_length',
        )
      open.push(call.id)
    }
  }
  return undefined
}

/**
 * The reasoning members of one message: Cerebras-style servers refuse members they do not know
 * (their own message); in DeepSeek's thinking mode an assistant message with tool calls must
 * carry the reasoning the model returned with it (TOOL-H-11) — missing is DeepSeek's own 400,
 * altered (not byte for byte what was handed out) the fake's.
 */
function checkReasoningMembers(
  message: Body,
  index: number,
  rules: OpenAIReasoningRules | undefined,
): FakeError | undefined {
  for (const member of rules?.refusedMembers ?? []) {
    if (message[member] === undefined) continue
    const path = `messages.${index}.${String(message['role'])}.${member}`
    return {
      status: 400,
      body: {
        message: `${path}: property '${path}' is unsupported`,
        type: 'invalid_request_error',
        param: 'validation_error',
        code: 'wrong_api_format',
      },
    }
  }
  if (rules?.needsItBack !== true || message['role'] !== 'assistant') return undefined
  if (message['tool_calls'] === undefined) return undefined
  const field = rules.field
  const value = message[field]
  if (value === undefined)
    return openAIError(
      `Missing \`${field}\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
      null,
      'invalid_request_error',
    )
  if (typeof value !== 'string' || !handedOut.has(value))
    return openAIError(
      `The \`${field}\` of the assistant message at message index ${index} is not the reasoning the model returned: it must be passed back unaltered.`,
      null,
      'invalid_request_error',
    )
  return undefined
}

let counter = 0

/** What the fake model decides to answer: tool calls, JSON, or text. */
type Decision =
  { kind: 'call'; calls: Array<{ name: string; args: string }> } | { kind: 'text'; text: string }

/**
 * The text of the first user message: the test's script for the fake model. `[steps=N]` asks for
 * N model turns in the tool loop (N − 1 of them tool calls; one by default), `[parallel]` for two
 * calls in each tool-call turn.
 */
function script(messages: Body[]): string {
  const first = messages.find((message) => message['role'] === 'user')?.['content']
  if (typeof first === 'string') return first
  return Array.isArray(first)
    ? first.map((part: Body) => String(part?.['text'] ?? '')).join('')
    : ''
}

function decide(body: Body): Decision {
  const model = String(body['model'] ?? '')
  const messages: Body[] = body['messages'] ?? []
  const last = messages.at(-1)
  const tools: Body[] = body['tools'] ?? []
  const choice = body['tool_choice']
  const plan = script(messages)
  const rounds = Number(/\[steps=(\d+)\]/.exec(plan)?.[1] ?? 2) - 1
  const sinceUser = messages.slice(messages.findLastIndex((message) => message['role'] === 'user'))
  const callTurns = sinceUser.filter((message) => message['tool_calls'] !== undefined).length
  if (tools.length > 0 && choice !== 'none' && (last?.['role'] !== 'tool' || callTurns < rounds)) {
    const named = typeof choice === 'object' ? choice?.function?.name : undefined
    const tool = tools.find((item) => item.function?.name === named) ?? tools[0]!
    const second = tools.find((item) => item !== tool) ?? tool
    const call = (picked: Body) => ({
      name: picked.function.name,
      args: JSON.stringify(sampleOf(picked.function.parameters ?? {})),
    })
    return {
      kind: 'call',
      calls: plan.includes('[parallel]') ? [call(tool), call(second)] : [call(tool)],
    }
  }
  const format = body['response_format']
  if (format?.type === 'json_schema')
    return { kind: 'text', text: JSON.stringify(sampleOf(format.json_schema.schema)) }
  if (format?.type === 'json_object') {
    const instruction = messages
      .filter((message) => message['role'] === 'system' || message['role'] === 'developer')
      .map((message) => String(message['content']))
      .join('\n')
    const schema = schemaInInstruction(instruction)
    return {
      kind: 'text',
      text: JSON.stringify(schema === undefined ? { answer: 'ok' } : sampleOf(schema)),
    }
  }
  const result = last?.['role'] === 'tool' ? ` after ${String(last['content'])}` : ''
  return { kind: 'text', text: `Answer from ${model}${result}.` }
}

/**
 * The reasoning of one answer: unique (so that an answer's reasoning sent back with another turn
 * is caught), and with what JSON and UTF-8 handling can break — quotes, a backslash, a line break,
 * accents, an emoji outside the BMP. Remembered as handed out.
 */
function reasoningText(messages: Body[]): string {
  const text = `Thinking about ${messages.length} messages (#${counter}): "quoted", back\\slash, ünï — 🧠\nnext line.`
  handedOut.add(text)
  handedOutInOrder.push(text)
  return text
}

/** The reasoning members of an answer's message, in the model's field (`<think>` goes in `content`). */
function reasoningMembers(field: OpenAIReasoningRules['field'], text: string | undefined): Body {
  if (text === undefined || field === 'think-tags') return {}
  if (field === 'reasoning_details')
    return {
      reasoning_details: [
        {
          type: 'reasoning.text',
          id: 'reasoning-text-1',
          format: 'MiniMax-response-v1',
          index: 0,
          text,
        },
      ],
    }
  return { [field]: text }
}

/** Splits text in three at code-point boundaries, as a server streams it. */
function thirds(text: string): string[] {
  const points = Array.from(text)
  const size = Math.ceil(points.length / 3)
  return [0, 1, 2].map((part) => points.slice(part * size, (part + 1) * size).join(''))
}

function usage(body: Body, output: number) {
  const prompt = Math.ceil(JSON.stringify(body['messages'] ?? []).length / 4)
  const reasoning = openAIRules(String(body['model']))?.reasoning === true ? 8 : 0
  return {
    prompt_tokens: prompt,
    completion_tokens: output + reasoning,
    total_tokens: prompt + output + reasoning,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0 },
  }
}

/**
 * A model's answer to a valid request, as OpenAI writes it: a tool call when tools are offered and
 * the conversation does not end with a tool result (more turns as the script asks, see
 * `script`), else the final text (JSON when a response format asks for it, following a schema
 * quoted in the instructions for JSON mode). A model that thinks on the request
 * (`openAIReasoningRules`) answers with reasoning in its own field. Streams are SSE chunks — the
 * reasoning and text in three deltas each, arguments in two — with the usage chunk when
 * `stream_options.include_usage` is set, and `[DONE]`.
 */
export function openAIModelAnswer(body: Body): { json: object } | { frames: string[] } {
  const decision = decide(body)
  counter += 1
  const id = `chatcmpl-fake${counter}`
  const model = String(body['model'])
  const rules = openAIReasoningRules(model, body)
  const field = rules?.field ?? 'reasoning_content'
  const reasoning = rules?.thinks === true ? reasoningText(body['messages'] ?? []) : undefined
  const thought =
    field === 'think-tags' && reasoning !== undefined ? `<think>\n${reasoning}\n</think>\n\n` : ''
  const output = decision.kind === 'call' ? 9 : 6
  const calls =
    decision.kind === 'call'
      ? decision.calls.map((call, index) => ({
          id: `call_fake${counter}_${index}`,
          type: 'function',
          function: { name: call.name, arguments: call.args },
        }))
      : []
  const text = decision.kind === 'text' ? thought + decision.text : thought
  const message = {
    role: 'assistant',
    content: text === '' ? null : text,
    ...reasoningMembers(field, reasoning),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  }
  const finish = decision.kind === 'call' ? 'tool_calls' : 'stop'
  if (body['stream'] !== true) {
    return {
      json: {
        id,
        object: 'chat.completion',
        created: 1_763_000_000,
        model,
        choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
        usage: usage(body, output),
      },
    }
  }
  const chunk = (delta: object, finishReason: string | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_763_000_000, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] })}\n\n`
  const frames = [chunk({ role: 'assistant', content: decision.kind === 'call' ? null : '' })]
  if (reasoning !== undefined && field !== 'think-tags')
    for (const part of thirds(reasoning)) frames.push(chunk(reasoningMembers(field, part)))
  if (text !== '')
    for (const part of thirds(text)) if (part !== '') frames.push(chunk({ content: part }))
  calls.forEach((call, index) => {
    const args = call.function.arguments
    const half = Math.ceil(args.length / 2)
    frames.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: '' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    )
  })
  frames.push(chunk({}, finish))
  if (body['stream_options']?.include_usage === true)
    frames.push(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_763_000_000, model, choices: [], usage: usage(body, output) })}\n\n`,
    )
  frames.push('data: [DONE]\n\n')
  return { frames }
}
