import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import { responsesPassthroughStream } from '../../../src/protocols/responses/passthrough-stream'
import { createSseReader } from '../../../src/sse/sse-reader'
import { expectResponsesStreamOrder } from '../../helpers/responses-stream'
import { everySplit, streamOfChunks } from '../../helpers/streams'

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/responses/${name}`, import.meta.url), 'utf8')
}

/** The model the fixtures name: as the call name, the bytes go out unchanged. */
const fixtureModel = 'gpt-5.1-codex-max'

/** Runs SSE bytes through the passthrough translator as the relay does. */
async function relay(
  chunks: readonly Uint8Array[],
  options: { failAtEnd?: boolean; callName?: string } = {},
) {
  const translator = responsesPassthroughStream(options.callName ?? fixtureModel)
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize: 1 << 22 })
  let out = ''
  let final: string | undefined
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    const result = translator.push(message)
    out += result.frames.join('')
    final ??= result.final
  }
  if (final === undefined) {
    if (options.failAtEnd === true) {
      out += translator.failure(
        new GatewayError('upstream_error', 'The upstream connection failed mid-stream.'),
      )
      final = 'error'
    } else {
      const last = translator.end()
      out += last.frames.join('')
      final = last.final
    }
  }
  return { out, final, usage: translator.usage() }
}

const bytes = (text: string) => [new TextEncoder().encode(text)]

describe('Responses passthrough stream', () => {
  it('relays every frame as written and meters the terminal event usage', async () => {
    const text = fixture('reasoning-tool-call.sse')
    const { out, final, usage } = await relay(bytes(text))
    expect(out).toBe(text)
    expect(final).toBe('ok')
    expect(usage).toEqual({
      inputTokens: 310,
      outputTokens: 96,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 64,
      totalTokens: 406,
    })
  })

  it('names the call name as the response model, in every event that carries the response, at every split', async () => {
    const text = fixture('reasoning-tool-call.sse')
    const renamed = text.replaceAll(`"model":"${fixtureModel}"`, '"model":"codex"')
    expect(renamed).not.toBe(text)
    for (const chunks of everySplit(text)) {
      const { out, final } = await relay(chunks, { callName: 'codex' })
      expect(out).toBe(renamed)
      expect(final).toBe('ok')
    }
  })

  it('reads usage from a terminal frame of tens of KB, at every chunk split of its neighbourhood', async () => {
    const text = fixture('text.sse')
    const instructions = 'You are Codex, a coding agent. '.repeat(1500)
    const big = text.replace(
      /"instructions":null/g,
      `"instructions":${JSON.stringify(instructions)}`,
    )
    const terminalFrame = big.slice(big.indexOf('event: response.completed'))
    expect(terminalFrame.length).toBeGreaterThan(45_000)
    const whole = await relay(bytes(big))
    expect(whole.out).toBe(big)
    expect(whole.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 9,
      cachedInputTokens: 1024,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 1209,
    })
    const prefix = big.slice(0, big.indexOf('event: response.completed'))
    for (const [head, tail] of everySplit(terminalFrame.slice(0, 300))) {
      const split = await relay([
        new TextEncoder().encode(prefix),
        head!,
        tail!,
        new TextEncoder().encode(terminalFrame.slice(300)),
      ])
      expect(split.usage).toEqual(whole.usage)
    }
  })

  it('RESP-STR-13: ends a stream cut before its terminal event with error and response.failed, numbered on', async () => {
    const text = fixture('text.sse')
    const cut = text.slice(0, text.indexOf('event: response.output_text.done'))
    const { out, final } = await relay(bytes(cut))
    expect(final).toBe('error')
    const added = out.slice(cut.length)
    expect(added).toContain('event: error')
    const events = expectResponsesStreamOrder(out)
    expect(events.at(-1)!.data).toMatchObject({
      type: 'response.failed',
      response: {
        id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
        status: 'failed',
        error: { code: 'server_error' },
      },
    })
  })

  it('RESP-ERR-03: a broken upstream connection gets the same ending', async () => {
    const text = fixture('text.sse')
    const cut = text.slice(0, text.indexOf('event: response.output_text.done'))
    const { out } = await relay(bytes(cut), { failAtEnd: true })
    const events = expectResponsesStreamOrder(out)
    expect(events.at(-2)!.data).toMatchObject({
      type: 'error',
      message: 'The upstream connection failed mid-stream.',
    })
  })

  it('passes an upstream failure through as it is, as the end of the stream', async () => {
    const text = fixture('error-mid-stream.sse')
    const { out, final } = await relay(bytes(text))
    expect(out).toBe(text)
    expect(final).toBe('error')
    expectResponsesStreamOrder(out)
  })
})
