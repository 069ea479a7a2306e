import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import { readBedrockStream, type BedrockApi } from '../../../src/upstream/bedrock/bedrock-stream'
import {
  chunkFrame,
  converseFrame,
  errorFrame,
  exceptionFrame,
} from '../../helpers/bedrock/event-stream-encoder'

/** An answer whose body yields `pieces`. */
function answer(pieces: Uint8Array[], type = 'application/vnd.amazon.eventstream') {
  let next = 0
  let cancelled = false
  return {
    status: 200,
    headers: { get: (name: string) => (name === 'content-type' ? type : null) },
    body: {
      read: async () =>
        next < pieces.length
          ? { done: false as const, value: pieces[next++]! }
          : { done: true as const },
      cancel: async () => void (cancelled = true),
    },
    cancelled: () => cancelled,
  }
}

/** The SSE text the reader makes of `pieces`, and the error it ended with. */
async function readAll(pieces: Uint8Array[], api: BedrockApi = 'invoke') {
  const source = readBedrockStream(answer(pieces), api, api === 'invoke' ? 'anthropic' : 'openai')
  let text = ''
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const next = await source.read()
      if (next.done) return { text, error: undefined }
      text += decoder.decode(next.value)
    }
  } catch (error) {
    return { text, error: error as GatewayError }
  }
}

const claudeEvents = [
  { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 5, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hé\n"there"' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
  {
    type: 'message_stop',
    'amazon-bedrock-invocationMetrics': { inputTokenCount: 5, outputTokenCount: 3 },
  },
]
const claudeStream = Buffer.concat(claudeEvents.map((event) => chunkFrame(event)))
const claudeSse = claudeEvents
  .map((event) => {
    const { 'amazon-bedrock-invocationMetrics': _metrics, ...rest } = event as Record<
      string,
      unknown
    >
    return `event: ${event.type}\ndata: ${JSON.stringify(rest)}\n\n`
  })
  .join('')

describe('the Bedrock stream reader', () => {
  it('writes each InvokeModel chunk as the Anthropic event it carries, at every split', async () => {
    expect(await readAll([claudeStream])).toEqual({ text: claudeSse, error: undefined })
    for (let at = 1; at < claudeStream.length; at++) {
      const split = await readAll([claudeStream.subarray(0, at), claudeStream.subarray(at)])
      expect(split.text).toBe(claudeSse)
      expect(split.error).toBeUndefined()
    }
  })

  it('writes each ConverseStream frame as an SSE event named by its event type', async () => {
    const frames = [
      converseFrame('messageStart', { role: 'assistant' }),
      converseFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
      converseFrame('messageStop', { stopReason: 'end_turn' }),
      converseFrame('metadata', { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } }),
    ]
    const { text, error } = await readAll([Buffer.concat(frames)], 'converse')
    expect(error).toBeUndefined()
    expect(text).toBe(
      'event: messageStart\ndata: {"role":"assistant","p":"abcd"}\n\n' +
        'event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abcd"}\n\n' +
        'event: messageStop\ndata: {"stopReason":"end_turn","p":"abcd"}\n\n' +
        'event: metadata\ndata: {"usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"p":"abcd"}\n\n',
    )
  })

  it.each([
    ['throttlingException', 429, 'rate_limited'],
    ['modelStreamErrorException', 424, 'upstream_error'],
    ['modelTimeoutException', 408, 'upstream_timeout'],
    ['serviceUnavailableException', 503, 'upstream_error'],
    ['internalServerException', 500, 'upstream_error'],
    ['validationException', 400, 'upstream_error'],
  ])('fails with the status of a %s before any event (%i)', async (name, status, code) => {
    const { text, error } = await readAll([exceptionFrame(name, 'It failed.')])
    expect(text).toBe('')
    expect(GatewayError.isInstance(error)).toBe(true)
    expect(error!.status).toBe(status)
    expect(error!.code).toBe(code)
    expect(error!.upstream?.status).toBe(status)
    expect(error!.message).toBe(`Bedrock ${name}: It failed.`)
    expect(error!.upstream?.body).toMatchObject({
      type: 'error',
      error: { message: `Bedrock ${name}: It failed.` },
    })
  })

  it('hands out the events before a mid-stream exception, then fails, at every split', async () => {
    const bytes = Buffer.concat([
      ...claudeEvents.slice(0, 3).map((event) => chunkFrame(event)),
      exceptionFrame('throttlingException', 'Slow down.'),
    ])
    for (let at = 1; at < bytes.length; at += 7) {
      const { text, error } = await readAll([bytes.subarray(0, at), bytes.subarray(at)])
      expect(text).toBe(claudeSse.split('event: content_block_stop')[0])
      expect(error?.status).toBe(429)
    }
  })

  it("reads an `error` frame's code and message headers", async () => {
    const { error } = await readAll([errorFrame('InternalServerException', 'Boom.')])
    expect(error?.status).toBe(500)
    expect(error?.message).toBe('Bedrock InternalServerException: Boom.')
  })

  it('fails as the upstream (502) for a bad CRC, a stream cut in a frame, or a chunk that is not an event', async () => {
    const corrupt = Buffer.from(claudeStream)
    corrupt[corrupt.length - 1]! ^= 0xff
    const bad = await readAll([corrupt])
    expect(bad.error?.status).toBe(502)
    expect(bad.error?.message).toMatch(/message CRC/)
    expect(bad.text).toBe(claudeSse.split('event: message_stop')[0])
    const cut = await readAll([claudeStream.subarray(0, claudeStream.length - 3)])
    expect(cut.error?.message).toBe('The Bedrock stream ended inside a frame.')
    const notEvent = await readAll([chunkFrame({ hello: 'world' })])
    expect(notEvent.error?.message).toBe('A Bedrock chunk does not carry an Anthropic event.')
  })

  it('refuses an answer that is not an event stream', () => {
    expect(() => readBedrockStream(answer([], 'application/json'), 'invoke', 'anthropic')).toThrow(
      /with application\/json, not application\/vnd.amazon.eventstream/,
    )
  })

  it('maps a 403 exception to the refused-credentials failure (502, upstream 403)', async () => {
    const { error } = await readAll([exceptionFrame('accessDeniedException', 'No.')])
    expect(error?.status).toBe(502)
    expect(error?.upstream?.status).toBe(403)
  })
})
