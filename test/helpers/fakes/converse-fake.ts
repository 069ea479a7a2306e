import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { converseFrame, exceptionFrame } from '../bedrock/event-stream-encoder'
import { verifySigV4, type FakeAwsCredentials } from '../bedrock/sigv4-verifier'
import { converseProblem } from './converse-rules'
import { sampleOf } from './schema-sample'

type Json = Record<string, unknown>

/** One call the fake received. */
export type ConverseCall = {
  path: string
  model: string
  stream: boolean
  body: Json
  auth: string
}

/** What the model answers, in Converse content blocks, and why it stopped. */
type Answer = { content: Json[]; stopReason: string }

/** A fake of Bedrock's Converse and ConverseStream on 127.0.0.1, answering as a model. */
export type ConverseFake = {
  url: string
  calls: ConverseCall[]
  /** The usage objects it reported, answer by answer. */
  usages: Json[]
  close(): Promise<void>
}

/**
 * Starts the fake. It enforces Converse's request rules (`converseProblem`, refused with AWS's
 * 400 `ValidationException` body), the bearer key, and that the model in the path is one it
 * serves; it answers as a model would:
 * - after tool results, text that quotes them;
 * - with tools declared (and no results yet), a call of the forced tool, else the first, whose
 *   input is a sample of its schema;
 * - otherwise `Answer from <model>: <last user text>`.
 * Models that reason (`deepseek.r1`, Nova 2 asked to) write reasoning first: R1 unsigned, Nova 2
 * signed with a signature the fake then requires back unchanged. A stream is SSE named by
 * Converse event type, as the Bedrock kind's reader writes it, with text split into pieces.
 * Usage counts cache writes for a prefix ending at a `cachePoint` the first time, reads after.
 * A model whose id contains `throttled` streams a word, then a `throttlingException`.
 *
 * With `aws`, it is Bedrock's own wire, as the bedrock kind meets it: every request's SigV4
 * signature recomputed by the fakes' independent verifier (refused with AWS's 403 body), and a
 * stream written as binary event-stream frames (the exception as an exception frame), in pieces
 * of `writeBytes` so that frames are split across reads.
 */
export async function startConverseFake(options: {
  apiKey: string
  models: readonly string[]
  aws?: { region: string; credentials: FakeAwsCredentials; writeBytes: number } | undefined
}): Promise<ConverseFake> {
  const calls: ConverseCall[] = []
  const usages: Json[] = []
  const signatures = new Set<string>()
  const cached = new Set<string>()
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const fail = (status: number, type: string, message: string) => {
        response.writeHead(status, {
          'content-type': 'application/json',
          'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        })
        response.end(JSON.stringify({ message }))
      }
      const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(request.url ?? '')
      if (request.method !== 'POST' || match === null)
        return fail(404, 'UnknownOperationException', 'Unknown operation')
      const refused =
        options.aws === undefined
          ? request.headers.authorization === `Bearer ${options.apiKey}`
            ? undefined
            : {
                status: 403,
                errorType: 'AccessDeniedException',
                message: 'Authentication failed: bad API key',
              }
          : verifySigV4(
              {
                method: request.method ?? '',
                target: request.url ?? '',
                headers: Object.fromEntries(
                  Object.entries(request.headers).map(([name, value]) => [
                    name,
                    Array.isArray(value) ? value.join(',') : (value ?? ''),
                  ]),
                ),
                body: Buffer.concat(chunks),
              },
              options.aws.credentials,
              { region: options.aws.region, service: 'bedrock', now: new Date() },
            )
      if (refused !== undefined) return fail(refused.status, refused.errorType, refused.message)
      const model = decodeURIComponent(match[1]!)
      if (!options.models.includes(model))
        return fail(400, 'ValidationException', 'The provided model identifier is invalid.')
      let body: Json
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json
      } catch {
        return fail(400, 'SerializationException', 'The request body is not valid JSON.')
      }
      const stream = match[2] === 'converse-stream'
      calls.push({
        path: request.url!,
        model,
        stream,
        body,
        auth: request.headers.authorization ?? '',
      })
      const problem = converseProblem(body, signatures)
      if (problem !== undefined) return fail(400, 'ValidationException', problem)
      const answer = modelAnswer(model, body, signatures)
      const usage = usageOf(body, answer, cached)
      usages.push(usage)
      if (!stream) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            output: { message: { role: 'assistant', content: answer.content } },
            stopReason: answer.stopReason,
            usage,
            metrics: { latencyMs: 12 },
          }),
        )
        return
      }
      if (options.aws !== undefined) {
        const frames = model.includes('throttled')
          ? [
              converseFrame('messageStart', { role: 'assistant' }),
              converseFrame('contentBlockDelta', {
                contentBlockIndex: 0,
                delta: { text: 'Partial' },
              }),
              exceptionFrame(
                'throttlingException',
                'Too many tokens, please wait before trying again.',
              ),
            ]
          : streamEvents(answer, usage).map(([event, data]) => converseFrame(event, data))
        void writeInPieces(response, Buffer.concat(frames), options.aws.writeBytes)
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      if (model.includes('throttled')) {
        // Throttled after the first words: the exception as the Bedrock kind's reader writes it.
        response.write(`event: messageStart\ndata: {"role":"assistant"}\n\n`)
        response.write(
          `event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Partial"}}\n\n`,
        )
        response.end(
          `event: throttlingException\ndata: {"message":"Too many tokens, please wait before trying again."}\n\n`,
        )
        return
      }
      for (const [event, data] of streamEvents(answer, usage)) {
        response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      }
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    usages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** An event stream as Bedrock sends it, in pieces of `size` bytes, each its own write. */
async function writeInPieces(response: ServerResponse, bytes: Buffer, size: number) {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' })
  for (let at = 0; at < bytes.length; at += size) {
    response.write(bytes.subarray(at, at + size))
    await new Promise((resolve) => setImmediate(resolve))
  }
  response.end()
}

function modelAnswer(model: string, body: Json, signatures: Set<string>): Answer {
  const messages = body['messages'] as Array<{ role: string; content: Json[] }>
  const last = messages.at(-1)!
  const reasoning = reasoningOf(model, body, signatures)
  const results = last.content.flatMap((block) => {
    const result = block['toolResult'] as Json | undefined
    if (result === undefined) return []
    return (result['content'] as Json[]).map((item) =>
      typeof item['text'] === 'string' ? item['text'] : JSON.stringify(item['json'] ?? ''),
    )
  })
  const config = body['toolConfig'] as Json | undefined
  const tools = ((config?.['tools'] as Json[] | undefined) ?? []).map(
    (tool) => tool['toolSpec'] as Json,
  )
  if (results.length === 0 && tools.length > 0) {
    const choice = config?.['toolChoice'] as Json | undefined
    const forced = (choice?.['tool'] as Json | undefined)?.['name']
    const tool = tools.find((spec) => spec['name'] === forced) ?? tools[0]!
    const input = sampleOf((tool['inputSchema'] as Json)['json'])
    return {
      content: [
        ...reasoning,
        { text: 'Let me check.' },
        {
          toolUse: {
            toolUseId: `tooluse_${messages.length}_${signatures.size}`,
            name: tool['name'],
            input,
          },
        },
      ],
      stopReason: 'tool_use',
    }
  }
  const userText = last.content
    .map((block) => (typeof block['text'] === 'string' ? block['text'] : ''))
    .join(' ')
    .trim()
  const text =
    results.length > 0
      ? `Answer from ${model}: the tool said ${results.join('; ')}`
      : `Answer from ${model}: ${userText}`
  return { content: [...reasoning, { text }], stopReason: 'end_turn' }
}

function reasoningOf(model: string, body: Json, signatures: Set<string>): Json[] {
  if (model.includes('deepseek.r1'))
    return [{ reasoningContent: { reasoningText: { text: 'Thinking it over.' } } }]
  const fields = body['additionalModelRequestFields'] as Json | undefined
  const config = fields?.['reasoningConfig'] as Json | undefined
  if (config?.['type'] !== 'enabled') return []
  const signature = `sig-${signatures.size + 1}-${model}`
  signatures.add(signature)
  return [{ reasoningContent: { reasoningText: { text: 'Weighing the tools.', signature } } }]
}

function usageOf(body: Json, answer: Answer, cached: Set<string>): Json {
  const input = Math.ceil(JSON.stringify(body['messages']).length / 4)
  const output = Math.ceil(JSON.stringify(answer.content).length / 4)
  const system = (body['system'] as Json[] | undefined) ?? []
  const point = system.findIndex((block) => 'cachePoint' in block)
  const usage: Json = { inputTokens: input, outputTokens: output, totalTokens: input + output }
  if (point > 0) {
    const prefix = JSON.stringify(system.slice(0, point))
    const tokens = Math.ceil(prefix.length / 4)
    usage[cached.has(prefix) ? 'cacheReadInputTokens' : 'cacheWriteInputTokens'] = tokens
    usage['totalTokens'] = input + output + tokens
    cached.add(prefix)
  }
  return usage
}

function streamEvents(answer: Answer, usage: Json): Array<[string, Json]> {
  const events: Array<[string, Json]> = [['messageStart', { role: 'assistant' }]]
  answer.content.forEach((block, index) => {
    const contentBlockIndex = index
    if (typeof block['text'] === 'string') {
      for (const piece of pieces(block['text']))
        events.push(['contentBlockDelta', { contentBlockIndex, delta: { text: piece } }])
    } else if (block['reasoningContent'] !== undefined) {
      const reasoning = (block['reasoningContent'] as Json)['reasoningText'] as Json
      for (const piece of pieces(String(reasoning['text'])))
        events.push([
          'contentBlockDelta',
          { contentBlockIndex, delta: { reasoningContent: { text: piece } } },
        ])
      if (reasoning['signature'] !== undefined)
        events.push([
          'contentBlockDelta',
          { contentBlockIndex, delta: { reasoningContent: { signature: reasoning['signature'] } } },
        ])
    } else {
      const use = block['toolUse'] as Json
      events.push([
        'contentBlockStart',
        {
          contentBlockIndex,
          start: { toolUse: { toolUseId: use['toolUseId'], name: use['name'] } },
        },
      ])
      for (const piece of pieces(JSON.stringify(use['input'])))
        events.push([
          'contentBlockDelta',
          { contentBlockIndex, delta: { toolUse: { input: piece } } },
        ])
    }
    events.push(['contentBlockStop', { contentBlockIndex }])
  })
  events.push(
    ['messageStop', { stopReason: answer.stopReason }],
    ['metadata', { usage, metrics: { latencyMs: 12 } }],
  )
  return events
}

/** A text in three pieces, as a model streams it. */
function pieces(text: string): string[] {
  const third = Math.max(1, Math.ceil(text.length / 3))
  const out: string[] = []
  for (let offset = 0; offset < text.length; offset += third)
    out.push(text.slice(offset, offset + third))
  return out.length === 0 ? [''] : out
}
