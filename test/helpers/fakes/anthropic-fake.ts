import { anthropicRules } from './fake-models'
import { sampleOf, schemaInInstruction } from './schema-sample'
import { anthropicError, type FakeError } from './vendor-errors'

type Body = Record<string, any>
type Block = Record<string, any>

/** Signatures the fake issued, with the thinking text each one signs. */
const issued = new Map<string, string>()
let counter = 0

/**
 * The rules Anthropic's messages API enforces that translation can break, with Anthropic's own
 * messages: `max_tokens` within the model's maximum; thinking modes per model (manual
 * `budget_tokens` ≥ 1024 and below `max_tokens`, adaptive, disabled); no sampling fields with
 * thinking, and none at all on models that refuse them; `temperature` or `top_p` on models that
 * take one of them; no forced tool use with thinking, nor on models that refuse it;
 * `output_config.format` only on models with structured outputs; while thinking is on, the last
 * assistant turn holding a tool call must start with thinking; every thinking block's signature
 * must be one Anthropic issued, for that text; tool ids match `^[a-zA-Z0-9_-]+$`.
 *
 * @returns the error Anthropic would answer with, or `undefined` for a valid request
 * @see https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
 */
export function checkAnthropicRequest(body: Body): FakeError | undefined {
  const model = String(body['model'] ?? '')
  const rules = anthropicRules(model)
  const maxTokens = body['max_tokens']
  if (rules !== undefined && maxTokens > rules.maxOutput)
    return anthropicError(
      `max_tokens: ${maxTokens} > ${rules.maxOutput}, which is the maximum allowed number of output tokens for ${model}`,
    )
  const thinking: Block | undefined = body['thinking']
  const type = thinking?.['type']
  if (type === 'enabled') {
    if (rules !== undefined && !rules.budget)
      return anthropicError(
        rules.adaptive
          ? '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
          : `'${model}' does not support thinking.`,
      )
    if (!(thinking!['budget_tokens'] >= 1024))
      return anthropicError(
        'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      )
    if (thinking!['budget_tokens'] >= maxTokens)
      return anthropicError(
        '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
      )
  }
  if (type === 'adaptive' && rules !== undefined && !rules.adaptive)
    return anthropicError(`adaptive thinking is not supported on ${model}.`)
  if (type === 'disabled' && rules !== undefined && !rules.canDisable)
    return anthropicError(
      '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    )
  const thinkingOn =
    type === 'enabled' ||
    type === 'adaptive' ||
    (type === undefined && rules?.thinksByDefault === true)
  if (rules?.rejectsSampling === true) {
    for (const field of ['temperature', 'top_p', 'top_k'])
      if (body[field] !== undefined && !(field !== 'top_k' && body[field] === 1))
        return anthropicError(`\`${field}\` is not supported for this model; use the default.`)
  }
  if (thinkingOn) {
    if (body['temperature'] !== undefined && body['temperature'] !== 1)
      return anthropicError(
        '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      )
    if (body['top_k'] !== undefined)
      return anthropicError('`top_k` is not supported when thinking is enabled.')
    if (body['top_p'] !== undefined && body['top_p'] < 0.95)
      return anthropicError(
        '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.',
      )
  }
  if (
    rules?.temperatureOrTopP === true &&
    body['temperature'] !== undefined &&
    body['top_p'] !== undefined
  )
    return anthropicError(
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
    )
  const choice = body['tool_choice']?.['type']
  if (choice === 'any' || choice === 'tool') {
    if (rules?.rejectsForcedTools === true)
      return anthropicError(
        'Forced tool use is not supported for this model. Use tool_choice "auto".',
      )
    if (thinkingOn)
      return anthropicError('Thinking may not be enabled when tool_choice forces tool use.')
  }
  const format = body['output_config']?.['format'] ?? body['output_format']
  if (format !== undefined) {
    if (rules !== undefined && !rules.structuredOutputs)
      return anthropicError(`'${model}' does not support output_config.format.`)
    const problem = schemaProblem(format['schema'])
    if (problem !== undefined) return anthropicError(`output_config.format.schema: ${problem}`)
  }
  return checkMessages(body, thinkingOn)
}

function checkMessages(body: Body, thinkingOn: boolean): FakeError | undefined {
  const messages: Body[] = Array.isArray(body['messages']) ? body['messages'] : []
  const lastAssistant = messages.findLastIndex((message) => message['role'] === 'assistant')
  for (const [index, message] of messages.entries()) {
    const content: Block[] = Array.isArray(message['content']) ? message['content'] : []
    for (const [at, block] of content.entries()) {
      if (block['type'] === 'text' && block['text'] === '')
        return anthropicError(
          `messages.${index}.content.${at}.text: text content blocks must be non-empty`,
        )
      const id = block['type'] === 'tool_use' ? block['id'] : block['tool_use_id']
      if (id !== undefined && !/^[a-zA-Z0-9_-]+$/.test(String(id)))
        return anthropicError(
          `messages.${index}.content.${at}: String should match pattern '^[a-zA-Z0-9_-]+$'`,
        )
      if (block['type'] === 'thinking' && issued.get(block['signature']) !== block['thinking'])
        return anthropicError(
          `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`,
        )
    }
    if (
      thinkingOn &&
      index === lastAssistant &&
      content.some((block) => block['type'] === 'tool_use')
    ) {
      const first = content[0]?.['type']
      if (first !== 'thinking' && first !== 'redacted_thinking')
        return anthropicError(
          `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
        )
    }
  }
  return undefined
}

/** What Anthropic's structured outputs refuse in a schema: open objects, numeric bounds. */
function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const node = schema as Record<string, any>
  if (node['type'] === 'object' && node['additionalProperties'] !== false)
    return "For 'object' type, 'additionalProperties' must be explicitly set to false"
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'])
    if (key in node) return `For '${String(node['type'])}' type, property '${key}' is not supported`
  const children: unknown[] = []
  for (const key of ['properties', '$defs', 'definitions'])
    if (typeof node[key] === 'object' && node[key] !== null)
      children.push(...Object.values(node[key]))
  for (const key of ['items', 'additionalProperties']) children.push(node[key])
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(node[key])) children.push(...node[key])
  for (const child of children) {
    const problem = schemaProblem(child)
    if (problem !== undefined) return problem
  }
  return undefined
}

/**
 * Remembers the thinking signatures in an answer a test scripted for the fake upstream (a message
 * body, or SSE frames with `thinking_delta` and `signature_delta`): the upstream issued them, so
 * they are valid when a client sends them back.
 */
export function recordScriptedThinking(answer: {
  body?: unknown
  frames?: readonly string[]
}): void {
  const content = (answer.body as Body | undefined)?.['content']
  if (Array.isArray(content))
    for (const block of content as Block[])
      if (block['type'] === 'thinking') issued.set(block['signature'], block['thinking'])
  const texts = new Map<number, string>()
  for (const frame of answer.frames ?? []) {
    const data = /^data: (.*)$/m.exec(frame)?.[1]
    if (data === undefined) continue
    let event: Body
    try {
      event = JSON.parse(data) as Body
    } catch {
      continue
    }
    const delta = event['delta']
    if (event['type'] !== 'content_block_delta' || typeof delta !== 'object') continue
    const index = Number(event['index'])
    if (delta['type'] === 'thinking_delta')
      texts.set(index, (texts.get(index) ?? '') + String(delta['thinking']))
    if (delta['type'] === 'signature_delta') issued.set(delta['signature'], texts.get(index) ?? '')
  }
}

/** Issues a signature for a thinking text, as Anthropic does, and remembers it. */
function sign(text: string): string {
  counter += 1
  const signature = btoa(`fake-anthropic-signature-${counter}-${text.length}`)
  issued.set(signature, text)
  return signature
}

/**
 * A model's answer to a valid request, as Anthropic writes it: signed thinking first while
 * thinking is on; then a tool call when tools are offered, none is forced away and the last user
 * turn holds no tool result (the forced tool when one is forced), else the final text (JSON for
 * `output_config.format`, or when the system prompt asks for a JSON object). Streams follow Anthropic's event sequence with `signature_delta`.
 */
export function anthropicModelAnswer(body: Body): { json: object } | { frames: string[] } {
  const model = String(body['model'])
  const rules = anthropicRules(model)
  const type = body['thinking']?.['type']
  const thinkingOn =
    type === 'enabled' ||
    type === 'adaptive' ||
    (type === undefined && rules?.thinksByDefault === true)
  const messages: Body[] = body['messages'] ?? []
  const last = messages.at(-1)
  const lastContent: Block[] = Array.isArray(last?.['content']) ? last!['content'] : []
  const afterResults = lastContent.some((block) => block['type'] === 'tool_result')
  const tools: Block[] = body['tools'] ?? []
  const choice = body['tool_choice']
  const content: Block[] = []
  if (thinkingOn) {
    const text = `Considering turn ${messages.length}.`
    content.push({ type: 'thinking', thinking: text, signature: sign(text) })
  }
  counter += 1
  let stopReason = 'end_turn'
  if (tools.length > 0 && choice?.type !== 'none' && (!afterResults || choice?.type === 'tool')) {
    const tool = tools.find((item) => item['name'] === choice?.name) ?? tools[0]!
    content.push({
      type: 'tool_use',
      id: `toolu_01Fake${counter}`,
      name: tool['name'],
      input: sampleOf(tool['input_schema'] ?? {}),
    })
    stopReason = 'tool_use'
  } else {
    const format = body['output_config']?.['format'] ?? body['output_format']
    const results = lastContent.filter((block) => block['type'] === 'tool_result')
    // A model follows a system instruction to answer in JSON (quoting a schema or not).
    const system: unknown = body['system']
    const systemText =
      typeof system === 'string'
        ? system
        : Array.isArray(system)
          ? system.map((block: Block) => String(block['text'] ?? '')).join('\n')
          : ''
    const instructed = /Respond with a single JSON object/.test(systemText)
    const schema = instructed ? schemaInInstruction(systemText) : undefined
    const text =
      format !== undefined
        ? JSON.stringify(sampleOf(format['schema']))
        : instructed
          ? JSON.stringify(schema === undefined ? { answer: 'ok' } : sampleOf(schema))
          : `Answer from ${model}${results.length > 0 ? ` after ${results.length} tool result(s)` : ''}.`
    content.push({ type: 'text', text })
  }
  const usage = {
    input_tokens: Math.ceil(JSON.stringify(messages).length / 4),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 7 + (thinkingOn ? 5 : 0),
  }
  const id = `msg_01Fake${counter}`
  if (body['stream'] !== true) {
    return {
      json: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      },
    }
  }
  const frame = (event: string, data: object) =>
    `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`
  const frames = [
    frame('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    frame('ping', {}),
  ]
  content.forEach((block, index) => {
    if (block['type'] === 'thinking') {
      const text: string = block['thinking']
      frames.push(
        frame('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'thinking_delta', thinking: text.slice(0, 5) },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'thinking_delta', thinking: text.slice(5) },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: block['signature'] },
        }),
      )
    } else if (block['type'] === 'text') {
      const text: string = block['text']
      const half = Math.ceil(text.length / 2)
      frames.push(
        frame('content_block_start', { index, content_block: { type: 'text', text: '' } }),
        frame('content_block_delta', {
          index,
          delta: { type: 'text_delta', text: text.slice(0, half) },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'text_delta', text: text.slice(half) },
        }),
      )
    } else {
      const json = JSON.stringify(block['input'])
      const half = Math.ceil(json.length / 2)
      frames.push(
        frame('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block['id'], name: block['name'], input: {} },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(0, half) },
        }),
        frame('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(half) },
        }),
      )
    }
    frames.push(frame('content_block_stop', { index }))
  })
  frames.push(
    frame('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    frame('message_stop', {}),
  )
  return { frames }
}
