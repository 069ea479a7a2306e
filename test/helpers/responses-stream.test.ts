import { describe, expect, it } from 'vitest'
import { orderChecked } from './responses-stream'

const frame = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const response = (status: string, output: object[] = []) => ({
  id: 'resp_1',
  object: 'response',
  status,
  output,
  usage: {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  },
})
const sse = (text: string) =>
  new Response(text, { headers: { 'content-type': 'text/event-stream' } })
const url = 'http://gateway.test/v1/responses'

describe('orderChecked', () => {
  it('lets an ordered Responses stream through unchanged', async () => {
    const text =
      frame('response.created', { sequence_number: 0, response: response('in_progress') }) +
      frame('response.in_progress', { sequence_number: 1, response: response('in_progress') }) +
      frame('response.completed', { sequence_number: 2, response: response('completed') })
    expect(await orderChecked(sse(text), url).text()).toBe(text)
  })

  it('errors the body of a stream that breaks an ordering rule, so the client reading it fails', async () => {
    const skipped =
      frame('response.created', { sequence_number: 0, response: response('in_progress') }) +
      frame('response.completed', { sequence_number: 2, response: response('completed') })
    await expect(orderChecked(sse(skipped), url).text()).rejects.toThrow(/sequence_number of #1/)
    const lostItem =
      frame('response.created', { sequence_number: 0, response: response('in_progress') }) +
      frame('response.in_progress', { sequence_number: 1, response: response('in_progress') }) +
      frame('response.output_text.delta', {
        sequence_number: 2,
        item_id: 'msg_1',
        output_index: 0,
        delta: 'x',
      }) +
      frame('response.completed', { sequence_number: 3, response: response('completed') })
    await expect(orderChecked(sse(lostItem), url).text()).rejects.toThrow(/open item/)
  })

  it('leaves other answers alone', async () => {
    const json = Response.json({ ok: true })
    expect(orderChecked(json, url)).toBe(json)
    const chat = sse('data: [DONE]\n\n')
    expect(orderChecked(chat, 'http://gateway.test/v1/chat/completions')).toBe(chat)
  })
})
