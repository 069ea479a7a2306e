import { openAIRules } from './fake-models'
import { sampleOf, schemaInInstruction } from './schema-sample'
import { strictSchemaProblem } from './strict-schema'
import { openAIError, type FakeError } from './vendor-errors'

type Body = Record<string, any>
type Item = Record<string, any>

/** Encrypted reasoning the fake issued: OpenAI verifies its own blobs and refuses any other. */
const issued = new Set<string>()
/** Reasoning items of responses created with `store` (the default): OpenAI finds them by id. */
const stored = new Set<string>()
let counter = 0

/**
 * The rules OpenAI's Responses API enforces that a gateway can break, with OpenAI's own messages:
 * reasoning items carry encrypted content OpenAI issued (a gateway's own blob is
 * `invalid_encrypted_content`), or name by id one OpenAI stored (not with `store: false`); function tools are
 * strict unless `strict: false`, and a strict schema must close its objects; `reasoning.effort`
 * only on reasoning models, within their values; `max_output_tokens` at least 16; every
 * `function_call_output` answers a call in the input, and every call is answered.
 *
 * @returns the error OpenAI would answer with, or `undefined` for a valid request
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function checkResponsesRequest(body: Body): FakeError | undefined {
  const model = String(body['model'] ?? '')
  const rules = openAIRules(model)
  const effort = body['reasoning']?.['effort']
  if (effort !== undefined && effort !== null && rules !== undefined) {
    if (rules.efforts === undefined)
      return openAIError(
        "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        'reasoning.effort',
        'unsupported_parameter',
      )
    if (!rules.efforts.includes(effort))
      return openAIError(
        `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${rules.efforts.map((value) => `'${value}'`).join(', ')}.`,
        'reasoning.effort',
        'unsupported_value',
      )
  }
  // Reasoning models take no sampling fields (GPT-5.1 and later: only with effort `none`).
  const sampling = ['temperature', 'top_p'].find(
    (field) => body[field] !== undefined && body[field] !== null && body[field] !== 1,
  )
  const samplingAllowed =
    rules?.reasoning !== true || (rules.samplingWithoutReasoning === true && effort === 'none')
  if (sampling !== undefined && !samplingAllowed)
    return openAIError(
      `Unsupported parameter: '${sampling}' is not supported with this model.`,
      sampling,
      'unsupported_parameter',
    )
  const limit = body['max_output_tokens']
  if (typeof limit === 'number' && limit < 16)
    return openAIError(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${limit} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    )
  for (const [index, tool] of (Array.isArray(body['tools']) ? body['tools'] : []).entries()) {
    if (tool['type'] !== 'function' || tool['strict'] === false) continue
    const problem = strictSchemaProblem(tool['parameters'])
    if (problem !== undefined)
      return openAIError(
        `Invalid schema for function '${tool['name']}': In context=(), ${problem}`,
        `tools[${index}].parameters`,
        'invalid_function_parameters',
      )
  }
  return checkTextFormat(body) ?? checkInput(body)
}

/**
 * `text.format`: a `json_schema` has a name OpenAI accepts and a schema, closed when `strict`;
 * `json_object` needs the word "json" in the input or instructions.
 */
function checkTextFormat(body: Body): FakeError | undefined {
  const format = body['text']?.['format']
  if (format?.['type'] === 'json_object') {
    const said = JSON.stringify([body['input'], body['instructions']]).toLowerCase()
    if (!said.includes('json'))
      return openAIError(
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
        'input',
        null,
      )
  }
  if (format?.['type'] !== 'json_schema') return undefined
  const name = format['name']
  if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    return openAIError(
      "Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      'text.format.name',
      'invalid_value',
    )
  if (typeof format['schema'] !== 'object' || format['schema'] === null)
    return openAIError(
      "Missing required parameter: 'text.format.schema'.",
      'text.format.schema',
      'missing_required_parameter',
    )
  const problem = format['strict'] === true ? strictSchemaProblem(format['schema']) : undefined
  return problem === undefined
    ? undefined
    : openAIError(
        `Invalid schema for response_format '${name}': In context=(), ${problem}`,
        'text.format.schema',
        'invalid_json_schema',
      )
}

function checkInput(body: Body): FakeError | undefined {
  const input: Item[] = Array.isArray(body['input']) ? body['input'] : []
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const [index, item] of input.entries()) {
    if (item['type'] === 'reasoning') {
      const blob = item['encrypted_content']
      if (typeof blob === 'string' && !issued.has(blob))
        return openAIError(
          `The encrypted content for item ${String(item['id'])} could not be verified.`,
          null,
          'invalid_encrypted_content',
        )
      if ((blob === undefined || blob === null) && !stored.has(String(item['id'])))
        return openAIError(
          `Item with id '${String(item['id'])}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          `input[${index}]`,
          null,
        )
    }
    if (item['type'] === 'function_call' || item['type'] === 'custom_tool_call')
      calls.add(item['call_id'])
    if (item['type'] === 'function_call_output' || item['type'] === 'custom_tool_call_output') {
      if (!calls.has(item['call_id']))
        return openAIError(
          `No tool call found for function call output with call_id ${item['call_id']}.`,
          'input',
          null,
        )
      answered.add(item['call_id'])
    }
  }
  for (const call of calls)
    if (!answered.has(call))
      return openAIError(`No tool output found for function call ${call}.`, 'input', null)
  return undefined
}

/**
 * A model's answer to a valid request, as OpenAI's Responses API writes it: a reasoning item with
 * encrypted content OpenAI issued (and a summary when asked) while a reasoning model reasons; then
 * a function call when tools are offered and the input does not end with tool output, else the
 * final text (JSON conforming to `text.format` when one is set). Streams carry the whole lifecycle with sequence numbers.
 */
export function responsesModelAnswer(body: Body): { json: object } | { frames: string[] } {
  counter += 1
  const model = String(body['model'])
  const rules = openAIRules(model)
  const input: Item[] = Array.isArray(body['input'])
    ? body['input']
    : [{ role: 'user', content: String(body['input'] ?? '') }]
  const effort = body['reasoning']?.['effort']
  const reasons = rules?.reasoning === true && effort !== 'none'
  const output: Item[] = []
  if (reasons) {
    const blob = `gAAAAABfake${counter}${'A'.repeat(24)}`
    issued.add(blob)
    if (body['store'] !== false) stored.add(`rs_fake${counter}`)
    const wantsSummary = typeof body['reasoning']?.['summary'] === 'string'
    output.push({
      id: `rs_fake${counter}`,
      type: 'reasoning',
      summary: wantsSummary
        ? [{ type: 'summary_text', text: `Considering ${input.length} items.` }]
        : [],
      ...(((body['include'] as string[] | undefined) ?? []).includes('reasoning.encrypted_content')
        ? { encrypted_content: blob }
        : {}),
    })
  }
  const tools: Item[] = (body['tools'] ?? []).filter(
    (tool: Item) => tool['type'] === 'function' || tool['type'] === 'custom',
  )
  const last = input.at(-1)
  const afterOutput =
    last?.['type'] === 'function_call_output' || last?.['type'] === 'custom_tool_call_output'
  if (tools.length > 0 && body['tool_choice'] !== 'none' && !afterOutput) {
    const tool = tools[0]!
    output.push(
      tool['type'] === 'custom'
        ? {
            id: `ctc_fake${counter}`,
            type: 'custom_tool_call',
            status: 'completed',
            call_id: `call_fake${counter}`,
            name: tool['name'],
            input: '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch',
          }
        : {
            id: `fc_fake${counter}`,
            type: 'function_call',
            status: 'completed',
            arguments: JSON.stringify(sampleOf(tool['parameters'] ?? {})),
            call_id: `call_fake${counter}`,
            name: tool['name'],
          },
    )
  } else {
    const format = body['text']?.['format']
    const text =
      format?.['type'] === 'json_schema'
        ? JSON.stringify(sampleOf(format['schema']))
        : format?.['type'] === 'json_object'
          ? JSON.stringify(
              schemaInInstruction(String(body['instructions'] ?? '')) === undefined
                ? { answer: 'ok' }
                : sampleOf(schemaInInstruction(String(body['instructions'])) ?? {}),
            )
          : `Answer from ${model}${afterOutput ? ' after the tool output' : ''}.`
    output.push({
      id: `msg_fake${counter}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    })
  }
  const inputTokens = Math.ceil(JSON.stringify(input).length / 4)
  const reasoningTokens = reasons ? 5 : 0
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 7 + reasoningTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + 7 + reasoningTokens,
  }
  const response = (status: string, items: Item[], withUsage: boolean) => ({
    id: `resp_fake${counter}`,
    object: 'response',
    created_at: 1_763_474_589,
    status,
    error: null,
    incomplete_details: null,
    model,
    output: items,
    usage: withUsage ? usage : null,
    store: body['store'] ?? true,
  })
  if (body['stream'] !== true) return { json: response('completed', output, true) }
  let sequence = 0
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`
  const frames = [
    frame('response.created', { response: response('in_progress', [], false) }),
    frame('response.in_progress', { response: response('in_progress', [], false) }),
  ]
  output.forEach((item, output_index) => {
    const where = { item_id: item['id'], output_index }
    if (item['type'] === 'reasoning') {
      frames.push(
        frame('response.output_item.added', { output_index, item: { ...item, summary: [] } }),
      )
      for (const [summary_index, part] of (item['summary'] as Item[]).entries()) {
        frames.push(
          frame('response.reasoning_summary_part.added', {
            ...where,
            summary_index,
            part: { type: 'summary_text', text: '' },
          }),
          frame('response.reasoning_summary_text.delta', {
            ...where,
            summary_index,
            delta: part['text'],
          }),
          frame('response.reasoning_summary_text.done', {
            ...where,
            summary_index,
            text: part['text'],
          }),
          frame('response.reasoning_summary_part.done', { ...where, summary_index, part }),
        )
      }
    } else if (item['type'] === 'custom_tool_call') {
      frames.push(
        frame('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', input: '' },
        }),
        frame('response.custom_tool_call_input.delta', { ...where, delta: item['input'] }),
        frame('response.custom_tool_call_input.done', { ...where, input: item['input'] }),
      )
    } else if (item['type'] === 'function_call') {
      frames.push(
        frame('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', arguments: '' },
        }),
        frame('response.function_call_arguments.delta', { ...where, delta: item['arguments'] }),
        frame('response.function_call_arguments.done', { ...where, arguments: item['arguments'] }),
      )
    } else {
      const part = item['content'][0]
      frames.push(
        frame('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', content: [] },
        }),
        frame('response.content_part.added', {
          ...where,
          content_index: 0,
          part: { ...part, text: '' },
        }),
        frame('response.output_text.delta', {
          ...where,
          content_index: 0,
          delta: part['text'],
          logprobs: [],
        }),
        frame('response.output_text.done', {
          ...where,
          content_index: 0,
          text: part['text'],
          logprobs: [],
        }),
        frame('response.content_part.done', { ...where, content_index: 0, part }),
      )
    }
    frames.push(frame('response.output_item.done', { output_index, item }))
  })
  frames.push(frame('response.completed', { response: response('completed', output, true) }))
  return { frames }
}
