import { topLevelKeys } from '../helpers/json-keys'
import { responseObject, responsesStreamFrames } from '../helpers/responses-upstream'
import { answerGeminiEmbedFuzz, answerOpenAIEmbeddingsFuzz } from './embedding-answers'

/**
 * Upstream fakes for the property suites, as one `fetch`: each answers the way its vendor does —
 * the vendor's JSON answer or SSE event sequence (with usage, terminators and, when the request
 * declares tools, now and then a tool call), or the vendor's 400 for a body the vendor would
 * refuse — so the gateway's happy paths run for every generated body that gets through. Every
 * call is recorded with what the upstream would have read, for the suites' assertions.
 *
 * @module
 */

/** The protocol families the fakes speak (`responses`: an OpenAI upstream serving /v1/responses). */
export type VendorProtocol = 'openai' | 'anthropic' | 'gemini' | 'responses'

/** Base URLs of the three fakes, by each family's SDK convention. */
export const fakeBaseUrls: Record<VendorProtocol, string> = {
  openai: 'https://openai.fuzz/v1',
  anthropic: 'https://anthropic.fuzz',
  gemini: 'https://gemini.fuzz',
  responses: 'https://responses.fuzz/v1',
}

/** One call a fake received. */
export type FakeCall = {
  protocol: VendorProtocol
  /** The model the upstream reads: the body's `model`, or Gemini's path model. */
  model: string | undefined
  /** Problems no upstream should see: a body that is not JSON, keys a parser may read twice. */
  problems: string[]
  /** Whether the call asked for a stream. */
  stream?: boolean
  /** On OpenAI, whether the usage chunk was asked for. */
  includeUsage?: boolean
}

type Json = Record<string, unknown>

const encoder = new TextEncoder()

/** The fakes as one fetch, and the calls they have received. */
export function createVendorFakes() {
  const calls: FakeCall[] = []
  let served = 0
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    const text = await request.text()
    const protocol = (Object.keys(fakeBaseUrls) as VendorProtocol[]).find(
      (name) => new URL(fakeBaseUrls[name]).host === url.host,
    )
    if (protocol === undefined) throw new TypeError(`No fake at ${url.host}`)
    served += 1
    const call: FakeCall = { protocol, model: undefined, problems: [] }
    calls.push(call)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      call.problems.push('the body is not JSON')
      return vendorError(protocol, 400, 'Could not parse the JSON body.')
    }
    const keys = topLevelKeys(text)
    if (new Set(keys).size !== keys.length) call.problems.push(`duplicate keys: ${keys.join(',')}`)
    if (!isObject(body)) return vendorError(protocol, 400, 'The body must be an object.')
    if (protocol === 'gemini') {
      const match = /\/v1beta\/models\/([^:]+):(\w+)/.exec(url.pathname)
      call.model = match === null ? undefined : decodeURIComponent(match[1]!)
      if (isObject(body['generateContentRequest'])) {
        const inner = body['generateContentRequest']['model']
        if (inner !== undefined && inner !== `models/${call.model}`)
          call.problems.push(`generateContentRequest.model is ${String(inner)}`)
      }
      if (body['model'] !== undefined && body['model'] !== `models/${call.model}`)
        call.problems.push(`body model is ${String(body['model'])}`)
      const action = match?.[2] ?? ''
      if (action === 'embedContent' || action === 'batchEmbedContents')
        return answerGeminiEmbedFuzz(body, action, call.model, call.problems)
      return answerGemini(body, action, served)
    }
    call.model = typeof body['model'] === 'string' ? body['model'] : undefined
    call.stream = body['stream'] === true
    call.stream = body['stream'] === true
    if (protocol === 'anthropic') return answerAnthropic(body, url.pathname, served)
    if (url.pathname.endsWith('/embeddings')) return answerOpenAIEmbeddingsFuzz(body)
    if (protocol === 'responses') return answerResponses(body, served)
    const options = body['stream_options']
    call.includeUsage = isObject(options) && options['include_usage'] === true
    return answerOpenAI(body, served)
  }
  return { fetch, calls }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function vendorError(protocol: VendorProtocol, status: number, message: string): Response {
  if (protocol === 'openai' || protocol === 'responses')
    return Response.json(
      { error: { message, type: 'invalid_request_error', param: null, code: null } },
      { status },
    )
  if (protocol === 'anthropic')
    return Response.json(
      { type: 'error', error: { type: 'invalid_request_error', message } },
      { status },
    )
  return Response.json({ error: { code: status, message, status: 'INVALID_ARGUMENT' } }, { status })
}

function sse(frames: readonly string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame))
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
}

/** The first declared tool's name, when an answer should be a tool call (every third call). */
function toolToCall(names: unknown[], served: number): string | undefined {
  const name = names.find((item): item is string => typeof item === 'string' && item !== '')
  return served % 3 === 0 ? name : undefined
}

function answerOpenAI(body: Json, served: number): Response {
  if (!Array.isArray(body['messages']) || body['messages'].length === 0)
    return vendorError('openai', 400, "Invalid 'messages': empty array.")
  const tools = Array.isArray(body['tools']) ? body['tools'] : []
  const tool = toolToCall(
    tools.map((item) =>
      isObject(item) && isObject(item['function']) ? item['function']['name'] : '',
    ),
    served,
  )
  const base = {
    id: `chatcmpl-fuzz${served}`,
    created: 1_763_000_000,
    model: String(body['model']),
  }
  const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }
  const toolCall = {
    id: `call_fuzz${served}`,
    type: 'function',
    function: { name: tool, arguments: '{"q":"x"}' },
  }
  if (body['stream'] !== true) {
    const message =
      tool === undefined
        ? { role: 'assistant', content: 'Hello there.', refusal: null }
        : { role: 'assistant', content: null, tool_calls: [toolCall] }
    const finish = tool === undefined ? 'stop' : 'tool_calls'
    return Response.json({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage,
    })
  }
  const options = body['stream_options']
  const withUsage = isObject(options) && options['include_usage'] === true
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...(withUsage ? { usage: null } : {}) })}\n\n`
  const frames = [chunk({ role: 'assistant', content: '' }, null)]
  if (tool === undefined)
    frames.push(chunk({ content: 'Hello' }, null), chunk({ content: ' there.' }, null))
  else frames.push(chunk({ tool_calls: [{ index: 0, ...toolCall }] }, null))
  frames.push(chunk({}, tool === undefined ? 'stop' : 'tool_calls'))
  if (withUsage)
    frames.push(
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
    )
  frames.push('data: [DONE]\n\n')
  return sse(frames)
}

function answerAnthropic(body: Json, path: string, served: number): Response {
  if (!Array.isArray(body['messages']) || body['messages'].length === 0)
    return vendorError('anthropic', 400, 'messages: at least one message is required')
  if (path.endsWith('/count_tokens')) return Response.json({ input_tokens: 21 })
  const maxTokens = body['max_tokens']
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
    return vendorError('anthropic', 400, 'max_tokens: Field required')
  const tools = Array.isArray(body['tools']) ? body['tools'] : []
  const tool = toolToCall(
    tools.map((item) => (isObject(item) ? item['name'] : '')),
    served,
  )
  const usage = {
    input_tokens: 20,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 4,
  }
  const block =
    tool === undefined
      ? { type: 'text', text: 'Hello there.' }
      : { type: 'tool_use', id: `toolu_fuzz${served}`, name: tool, input: { q: 'x' } }
  const stopReason = tool === undefined ? 'end_turn' : 'tool_use'
  const message = {
    id: `msg_fuzz${served}`,
    type: 'message',
    role: 'assistant',
    model: String(body['model']),
  }
  if (body['stream'] !== true)
    return Response.json({
      ...message,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    })
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const start = tool === undefined ? { type: 'text', text: '' } : { ...block, input: {} }
  const delta =
    tool === undefined
      ? { type: 'text_delta', text: 'Hello there.' }
      : { type: 'input_json_delta', partial_json: '{"q":"x"}' }
  return sse([
    frame('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    frame('ping', {}),
    frame('content_block_start', { index: 0, content_block: start }),
    frame('content_block_delta', { index: 0, delta }),
    frame('content_block_stop', { index: 0 }),
    frame('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 4 },
    }),
    frame('message_stop', {}),
  ])
}

function answerGemini(body: Json, action: string, served: number): Response {
  const request = isObject(body['generateContentRequest']) ? body['generateContentRequest'] : body
  const contents = request['contents']
  if (!Array.isArray(contents) || contents.length === 0)
    return vendorError(
      'gemini',
      400,
      '* GenerateContentRequest.contents: contents is not specified',
    )
  if (action === 'countTokens') return Response.json({ totalTokens: 17 })
  const tools = Array.isArray(body['tools']) ? body['tools'] : []
  const names = tools.flatMap((item) =>
    isObject(item) && Array.isArray(item['functionDeclarations'])
      ? item['functionDeclarations'].map((declaration) =>
          isObject(declaration) ? declaration['name'] : '',
        )
      : [],
  )
  const tool = toolToCall(names, served)
  const part =
    tool === undefined
      ? { text: 'Hello there.' }
      : { functionCall: { name: tool, args: { q: 'x' } } }
  const usageMetadata = { promptTokenCount: 14, candidatesTokenCount: 3, totalTokenCount: 17 }
  const answer = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: 'gemini-fuzz',
    responseId: `resp-fuzz${served}`,
  }
  if (action === 'generateContent') return Response.json(answer)
  if (tool !== undefined) return sse([`data: ${JSON.stringify(answer)}\r\n\r\n`])
  const first = {
    ...answer,
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, index: 0 }],
  }
  return sse([`data: ${JSON.stringify(first)}\r\n\r\n`, `data: ${JSON.stringify(answer)}\r\n\r\n`])
}

function answerResponses(body: Json, served: number): Response {
  const input = body['input']
  if (typeof input !== 'string' && !Array.isArray(input))
    return vendorError('responses', 400, "Missing required parameter: 'input'.")
  const tools = Array.isArray(body['tools']) ? body['tools'] : []
  const tool = toolToCall(
    tools.map((item) => (isObject(item) ? item['name'] : '')),
    served,
  )
  const usage = { input: 18, output: 5 }
  if (body['stream'] === true) {
    const item =
      tool === undefined
        ? { type: 'message' as const, pieces: ['Hello', ' there.'] }
        : {
            type: 'function_call' as const,
            callId: `call_fuzz${served}`,
            name: tool,
            pieces: ['{"q":', '"x"}'],
          }
    return sse(responsesStreamFrames([item], usage))
  }
  const output =
    tool === undefined
      ? [
          {
            id: `msg_fuzz${served}`,
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello there.' }],
          },
        ]
      : [
          {
            id: `fc_fuzz${served}`,
            type: 'function_call',
            status: 'completed',
            call_id: `call_fuzz${served}`,
            name: tool,
            arguments: '{"q":"x"}',
          },
        ]
  return Response.json({ ...responseObject(output, usage), model: String(body['model']) })
}
