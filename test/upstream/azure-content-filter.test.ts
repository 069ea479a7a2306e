import { describe, expect, it } from 'vitest'
import { createOpenAIStreamDecoder } from '../../src/protocols/openai/stream-decode'
import { normaliseAzureError, triggeredFilters } from '../../src/upstream/azure/content-filter'
import { azureResourceUrl, azureWire } from '../../src/upstream/azure/wire'
import type { UpstreamCall } from '../../src/upstream/provider'
import { azureAnswer, promptFilterRefusal } from '../helpers/fakes/azure-answers'
import { openAIModelAnswer } from '../helpers/fakes/openai-fake'
import { decodeSseChunks, everySplit, idGenerator } from '../helpers/streams'

describe("Azure's content-filter refusal", () => {
  it('names the filters that triggered, keeps the code and gets an OpenAI type', () => {
    const body = normaliseAzureError(promptFilterRefusal()) as any
    expect(body.error.message).toBe(
      "Azure OpenAI's content filter blocked the prompt: blocklist raiBlocklistName, violence (high).",
    )
    expect(body.error.code).toBe('content_filter')
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.innererror.code).toBe('ResponsibleAIPolicyViolation')
  })

  it('reads the annotations shape too (content_filter_results, blocklist details)', () => {
    expect(
      triggeredFilters({
        jailbreak: { filtered: true, detected: true },
        protected_material_text: { filtered: false, detected: true },
        hate: { filtered: false, severity: 'low' },
        custom_blocklists: { filtered: true, details: [{ filtered: true, id: 'words' }] },
      }),
    ).toEqual(['jailbreak', 'blocklist words'])
    expect(triggeredFilters(null)).toEqual([])
  })

  it('leaves other errors as Azure sent them', () => {
    const other = { error: { code: '401', message: 'Access denied' } }
    expect(normaliseAzureError(other)).toBe(other)
    expect(normaliseAzureError('text')).toBe('text')
  })
})

describe("Azure's stream through the OpenAI decoder", () => {
  const body = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  }
  const text = (messages: object[]) => {
    const request = { ...body, messages }
    return (azureAnswer(request, openAIModelAnswer(request)) as { frames: string[] }).frames.join(
      '',
    )
  }

  it('skips the prompt filter chunk and the annotation chunks, at every split', async () => {
    const wire = text(body.messages)
    for (const chunks of everySplit(wire)) {
      const events = await decodeSseChunks(
        chunks,
        createOpenAIStreamDecoder({ generateId: idGenerator() }),
      )
      expect(events[0]).toMatchObject({ type: 'message-start', model: 'gpt-4o-mini' })
      expect((events[0] as { id: string }).id).toMatch(/^chatcmpl-/)
      expect(events.filter((event) => event.type === 'message-start')).toHaveLength(1)
      expect(events.some((event) => event.type === 'text-delta' && event.delta === '')).toBe(false)
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } })
    }
  })

  it("honours an annotation chunk's content_filter finish", async () => {
    const wire = text([{ role: 'user', content: 'FILTEROUT' }])
    const events = await decodeSseChunks(
      [new TextEncoder().encode(wire)],
      createOpenAIStreamDecoder({ generateId: idGenerator() }),
    )
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'content-filter' },
    })
  })

  it('a stream of only the prompt filter chunk is an empty stream, not a crash', () => {
    const decoder = createOpenAIStreamDecoder({ generateId: idGenerator() })
    const first = {
      id: '',
      object: '',
      created: 0,
      model: '',
      prompt_filter_results: [],
      choices: [],
      usage: null,
    }
    expect(decoder.push({ type: 'event', data: JSON.stringify(first) })).toEqual([])
    expect(decoder.push({ type: 'event', data: '[DONE]' })).toMatchObject([{ type: 'error' }])
  })
})

describe('Azure URLs', () => {
  const call = (operation: UpstreamCall['operation']) =>
    ({ operation, model: 'my deploy' }) as UpstreamCall
  it('v1 without apiVersion, deployment URLs with it, Responses always on v1', () => {
    expect(azureWire(undefined).path(call('chat-completions'))).toBe('/openai/v1/chat/completions')
    expect(azureWire(undefined).path(call('embeddings'))).toBe('/openai/v1/embeddings')
    expect(azureWire('2024-10-21').path(call('chat-completions'))).toBe(
      '/openai/deployments/my%20deploy/chat/completions?api-version=2024-10-21',
    )
    expect(azureWire('2024-10-21').path(call('responses'))).toBe('/openai/v1/responses')
    expect(() => azureWire(undefined).path(call('messages'))).toThrow(/does not serve/)
    expect(azureWire(undefined).credentialHeader('k')).toEqual(['api-key', 'k'])
  })
  it('takes the resource URL with or without /openai/v1', () => {
    for (const url of [
      'https://r.openai.azure.com',
      'https://r.openai.azure.com/',
      'https://r.openai.azure.com/openai/v1/',
      'https://r.openai.azure.com/openai',
    ])
      expect(azureResourceUrl(url)).toBe('https://r.openai.azure.com')
  })
})
