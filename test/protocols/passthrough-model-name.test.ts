import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemberSplice, setStringMember } from '../../src/internal/set-string-member'
import { anthropicPassthroughStream } from '../../src/protocols/anthropic/passthrough-stream'
import { geminiPassthroughStream } from '../../src/protocols/gemini/passthrough-stream'
import {
  hasUsageObject,
  openAIPassthroughStream,
} from '../../src/protocols/openai/passthrough-stream'
import type { SseTranslator } from '../../src/canonical/sse-translator'
import { createSseReader } from '../../src/sse/sse-reader'
import { everySplit, streamOfChunks } from '../helpers/streams'

describe('setStringMember: the model member set in place', () => {
  it('splices the value and keeps every other byte', () => {
    const text = '{ "id" : "x",\n  "model":  "gpt-4o-2024-08-06" , "n": 1.50e3 }'
    expect(setStringMember(text, ['model'], 'fast')).toBe(
      '{ "id" : "x",\n  "model":  "fast" , "n": 1.50e3 }',
    )
    expect(setStringMember(text, ['model'], 'gpt-4o-2024-08-06')).toBe(text)
    // Escaped into JSON: a call name may hold quotes or non-ASCII.
    expect(JSON.parse(setStringMember(text, ['model'], 'a "b" ü\n')).model).toBe('a "b" ü\n')
  })

  it('sets a nested member, and only at its path', () => {
    const text =
      '{"type":"message_start","message":{"id":"m","content":[{"model":"x"}],"model":"claude-sonnet-4-6"},"model":"top"}'
    expect(setStringMember(text, ['message', 'model'], 'claude')).toBe(
      '{"type":"message_start","message":{"id":"m","content":[{"model":"x"}],"model":"claude"},"model":"top"}',
    )
  })

  it('leaves a text without the member, or with a member that is no string, as it is', () => {
    for (const text of [
      '{"id":"x"}',
      '{"model":null}',
      '{"model":{"name":"x"}}',
      '{"message":"m"}',
      '[{"model":"x"}]',
      'not json',
      '{"text":"\\"model\\":\\"x\\""}',
    ]) {
      expect(setStringMember(text, ['model'], 'fast')).toBe(text)
      expect(setStringMember(text, ['message', 'model'], 'fast')).toBe(text)
    }
  })

  it('re-encodes a text whose keys a client parser reads differently (duplicates, escapes)', () => {
    expect(JSON.parse(setStringMember('{"model":"a","model":"b"}', ['model'], 'fast'))).toEqual({
      model: 'fast',
    })
    expect(JSON.parse(setStringMember('{"mod\\u0065l":"a","x":1}', ['model'], 'fast'))).toEqual({
      model: 'fast',
      x: 1,
    })
    expect(
      JSON.parse(
        setStringMember('{"response":{"model":"a","mod\\u0065l":"b"}}', ['response', 'model'], 'r'),
      ),
    ).toEqual({ response: { model: 'r' } })
  })

  it('gives what JSON.parse reads, with the member set when it was a string (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }),
        fc.option(fc.oneof(fc.string(), fc.jsonValue()), { nil: undefined }),
        fc.string(),
        fc.constantFrom(undefined, 1, '\t'),
        fc.boolean(),
        (rest, model, name, space, escaped) => {
          const object = model === undefined ? { ...rest } : { ...rest, model }
          const written = JSON.stringify(object, null, space)
          // A key JSON.parse reads as `model`, spelled with an escape the upstream chose.
          const text = escaped ? written.replace('"model":', '"mod\\u0065l":') : written
          const result = JSON.parse(setStringMember(text, ['model'], name))
          const expected = typeof object.model === 'string' ? { ...object, model: name } : object
          expect(result).toEqual(JSON.parse(JSON.stringify(expected)))
        },
      ),
    )
  })
})

describe('setStringMember: a nested member (property)', () => {
  it('sets message.model as JSON.parse reads it, whatever else the text holds', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        (outer, inner, model, name) => {
          const message = model === undefined ? { ...inner } : { ...inner, model }
          const object = { ...outer, message }
          const result = JSON.parse(
            setStringMember(JSON.stringify(object), ['message', 'model'], name),
          )
          const expected =
            typeof message.model === 'string'
              ? { ...object, message: { ...message, model: name } }
              : object
          expect(result).toEqual(JSON.parse(JSON.stringify(expected)))
        },
      ),
    )
  })
})

/** Runs SSE text, cut into the given chunks, through a passthrough translator. */
async function relay(translator: SseTranslator, chunks: readonly Uint8Array[]): Promise<string> {
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize: 1 << 20 })
  let out = ''
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    const result = translator.push(message)
    out += result.frames.join('')
    if (result.final !== undefined) return out
  }
  return out + translator.end().frames.join('')
}

function fixture(path: string): string {
  return readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')
}

describe('passthrough streams name the call name, at every chunk split', () => {
  const cases = [
    {
      name: 'chat completions: every chunk',
      text: fixture('openai/tool-calls.sse'),
      translator: () => openAIPassthroughStream({ clientWantsUsage: true, callName: 'fast' }),
      from: '"model":"gpt-4o-mini-2024-07-18"',
      to: '"model":"fast"',
      count: 16,
    },
    {
      name: 'messages: message_start',
      text: fixture('anthropic/text.sse'),
      translator: () => anthropicPassthroughStream('claude'),
      from: '"model":"claude-sonnet-4-6"',
      to: '"model":"claude"',
      count: 1,
    },
    {
      name: 'Gemini: every event',
      text: fixture('gemini/text.sse'),
      translator: () => geminiPassthroughStream('flash'),
      from: '"modelVersion": "gemini-2.5-flash"',
      to: '"modelVersion": "flash"',
      count: 3,
    },
  ]
  for (const { name, text, translator, from, to, count } of cases) {
    it(name, async () => {
      expect(text.split(from)).toHaveLength(count + 1)
      const expected = text.replaceAll(from, to)
      for (const chunks of everySplit(text))
        expect(await relay(translator(), chunks)).toBe(expected)
    })
  }
})

describe("createMemberSplice: the model of a stream's events, the checked prefix kept", () => {
  /** An OpenAI chunk as upstreams write it, and variants that must not take the kept prefix. */
  const event = fc.record({
    id: fc.constantFrom('chatcmpl-a', 'chatcmpl-b'),
    model: fc.constantFrom('gpt-4o-mini-2024-07-18', 'gpt-4o-mini', 'model', 'm\\u006fdel'),
    content: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('"model":"x"', '\\u0075', 'é')),
    form: fc.constantFrom(
      'plain',
      'spaced',
      'model-twice',
      'escaped-key',
      'nested',
      'number',
      'raw',
    ),
  })
  const textOf = (item: { id: string; model: string; content: string; form: string }): string => {
    const content = JSON.stringify(item.content)
    const head = `{"id":"${item.id}","object":"chat.completion.chunk","created":1`
    const model = JSON.stringify(item.model)
    switch (item.form) {
      case 'spaced':
        return `${head}, "model" : ${model} ,"choices":[{"delta":{"content":${content}}}]}`
      case 'model-twice':
        return `${head},"model":${model},"choices":[],"model":"other"}`
      case 'escaped-key':
        return `${head},"model":${model},"choices":[],"us\\u0061ge":{"x":1}}`
      case 'nested':
        return `${head},"choices":[{"model":${model}}]}`
      case 'number':
        return `${head},"model":7,"choices":[]}`
      case 'raw':
        return `${head},"model":${model},"choices":[{"delta":{"content":"${item.content.replace(/["\\]/g, '')}"}}]}`
      default:
        return `${head},"model":${model},"choices":[{"delta":{"content":${content}}}]}`
    }
  }

  it('splices every event of a sequence as setStringMember does, byte for byte', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('gpt-4o-mini', 'gpt-4o-mini-2024-07-18', 'a"b'),
        (items, callName) => {
          const splice = createMemberSplice('model', callName)
          for (const item of items) {
            const text = textOf(item)
            expect(splice(text)).toBe(setStringMember(text, ['model'], callName))
          }
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('returns the very text when the name is already the call name', () => {
    const splice = createMemberSplice('model', 'gpt-4o-mini')
    const text = '{"id":"x","model":"gpt-4o-mini","choices":[]}'
    expect(splice(text)).toBe(text)
    const next = '{"id":"x","model":"gpt-4o-mini","choices":[{"delta":{}}]}'
    expect(splice(next)).toBe(next)
  })
})

describe('hasUsageObject: the usage check of OpenAI passthrough chunks', () => {
  const usagePattern =
    /"(?:u|\\u0075)(?:s|\\u0073)(?:a|\\u0061)(?:g|\\u0067)(?:e|\\u0065)"\s*:\s*\{/
  it('agrees with the pattern on any text', () => {
    const piece = fc.constantFrom(
      '"usage"',
      '"usage":null',
      '"usage":{',
      '"usage" : \n{',
      '"us\\u0061ge":{',
      '"\\u0075sage": {',
      '"usage":',
      ' ',
      ':',
      '{',
      '"',
      'x',
      '\\u',
      '"usage":"{"',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join('')
        expect(hasUsageObject(text)).toBe(usagePattern.test(text))
      }),
      { numRuns: 5000 },
    )
  })
})
