import { expect } from 'vitest'

/** One parsed event of a Responses stream: the SSE `event:` name and the data. */
export type ResponsesWireEvent = { event: string | undefined; data: Record<string, any> }

/** Splits Responses SSE text into events (the gateway writes `\n` line endings, one data line). */
export function parseResponsesSse(text: string): ResponsesWireEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n')
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7)
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n')
      return { event, data: JSON.parse(data) as Record<string, any> }
    })
}

/** Every event type a Responses client may receive from the gateway. */
const knownTypes = new Set([
  'response.created',
  'response.in_progress',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'response.output_item.added',
  'response.output_item.done',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.delta',
  'response.output_text.done',
  'response.refusal.delta',
  'response.refusal.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.delta',
  'response.reasoning_text.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.custom_tool_call_input.delta',
  'response.custom_tool_call_input.done',
  'keepalive',
  'error',
])
const terminals = new Set(['response.completed', 'response.incomplete', 'response.failed'])

/**
 * Asserts every ordering rule the strictest Responses consumers enforce (the `openai` SDK's
 * `responses.stream()` accumulator in v6.45+ and v7, the AI SDK's chunk schema, Codex's typed
 * items — responses-api.md §1.6, RESP-STR-01…13) on one emitted stream:
 *
 * - each frame's `event:` equals its data's `type`, and the type is a known one;
 * - `sequence_number` is 0, 1, 2… with no gap;
 * - `response.created` comes first, then `response.in_progress`; `keepalive` only after them;
 * - `output_item.added` appends (its `output_index` equals the number of items so far) a complete
 *   skeleton (message `content: []`, reasoning `summary: []`, calls with a `call_id` and empty
 *   `arguments` / `input`) with an id not seen before; the item's events come between its
 *   `added` and `done`, never interleaved with another item's, and name its id and index;
 *   `content_part.added` / `summary_part.added` append;
 * - `output_item.done` keeps `type`, `id` and `call_id`, and calls and messages say `status`;
 * - exactly one terminal event, the last, an `error` only right before `response.failed`; a
 *   completed or incomplete response holds every done item, in order, and a usage with all fields.
 *
 * @returns the events, for further assertions
 */
export function expectResponsesStreamOrder(text: string): ResponsesWireEvent[] {
  const events = parseResponsesSse(text)
  const items: Array<Record<string, any>> = []
  const ids = new Set<string>()
  let open:
    { index: number; item: Record<string, any>; parts: number; summaries: number } | undefined
  let terminal = -1
  events.forEach(({ event, data }, position) => {
    const type = data['type']
    expect(event, `event line of #${position}`).toBe(type)
    expect(knownTypes.has(type), `known event type ${type}`).toBe(true)
    expect(data['sequence_number'], `sequence_number of #${position} (${type})`).toBe(position)
    expect(terminal, `nothing after the terminal event (${type})`).toBe(-1)
    if (position === 0) expect(type).toBe('response.created')
    if (position === 1) expect(type).toBe('response.in_progress')
    if (terminals.has(type)) {
      terminal = position
      // A failure may cut an item short; any other ending closes every item first.
      if (type !== 'response.failed')
        expect(open, 'no item left open at the terminal event').toBeUndefined()
      const response = data['response']
      expect(response['status']).toBe(type.slice('response.'.length))
      if (type !== 'response.failed') {
        expect(response['output']).toEqual(items)
        for (const field of ['input_tokens', 'output_tokens', 'total_tokens'])
          expect(typeof response['usage'][field], `usage.${field}`).toBe('number')
        expect(typeof response['usage']['input_tokens_details']['cached_tokens']).toBe('number')
        expect(typeof response['usage']['output_tokens_details']['reasoning_tokens']).toBe('number')
        expect(response['usage']['total_tokens']).toBe(
          response['usage']['input_tokens'] + response['usage']['output_tokens'],
        )
      } else {
        expect(typeof response['error']['code']).toBe('string')
      }
      return
    }
    if (type === 'error') {
      expect(events[position + 1]?.data['type'], 'response.failed follows an error').toBe(
        'response.failed',
      )
      return
    }
    if (type === 'keepalive' || type === 'response.created' || type === 'response.in_progress') {
      if (type === 'keepalive') expect(position).toBeGreaterThan(1)
      return
    }
    if (type === 'response.output_item.added') {
      expect(open, `${type} while another item is open`).toBeUndefined()
      expect(data['output_index']).toBe(items.length)
      const item = data['item']
      expectSkeleton(item)
      const key = String(item['id'])
      expect(ids.has(key), `item id ${key} is new`).toBe(false)
      ids.add(key)
      if (item['call_id'] !== undefined) {
        expect(ids.has(`call:${item['call_id']}`), 'call_id is new').toBe(false)
        ids.add(`call:${item['call_id']}`)
      }
      open = { index: items.length, item, parts: 0, summaries: 0 }
      return
    }
    expect(open, `${type} belongs to an open item`).toBeDefined()
    expect(data['output_index']).toBe(open!.index)
    if (type === 'response.output_item.done') {
      const item = data['item']
      expect(item['type']).toBe(open!.item['type'])
      expect(item['id']).toBe(open!.item['id'])
      expect(item['call_id']).toBe(open!.item['call_id'])
      if (item['type'] !== 'reasoning')
        expect(['completed', 'incomplete']).toContain(item['status'])
      items.push(item)
      open = undefined
      return
    }
    expect(data['item_id']).toBe(open!.item['id'])
    if (type === 'response.content_part.added') expect(data['content_index']).toBe(open!.parts++)
    if (type === 'response.reasoning_summary_part.added')
      expect(data['summary_index']).toBe(open!.summaries++)
    if (type.endsWith('.delta')) expect(data['delta']).not.toBe('')
  })
  expect(terminal, 'the stream ends with one terminal event').toBe(events.length - 1)
  return events
}

function expectSkeleton(item: Record<string, any>): void {
  switch (item['type']) {
    case 'message':
      expect(item).toMatchObject({ role: 'assistant', content: [], status: 'in_progress' })
      expect(item['id']).toMatch(/^msg_/)
      return
    case 'reasoning':
      expect(item['summary']).toEqual([])
      expect(item['id']).toMatch(/^rs_/)
      return
    case 'function_call':
      expect(item).toMatchObject({ arguments: '', status: 'in_progress' })
      expect(item['call_id']).toEqual(expect.any(String))
      expect(item['call_id']).not.toBe('')
      return
    case 'custom_tool_call':
      expect(item).toMatchObject({ input: '', status: 'in_progress' })
      expect(item['call_id']).not.toBe('')
      return
    default:
      throw new Error(`Unexpected item type ${String(item['type'])}`)
  }
}

/**
 * The response, whose body — when it is a Responses event stream (`POST …/responses` answered as
 * SSE) — is checked with `expectResponsesStreamOrder` once the reader has had all of it: a
 * violation errors the body at its end, so whichever client reads it fails. Other answers are
 * returned as they are.
 */
export function orderChecked(response: Response, input: RequestInfo | URL): Response {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const stream = response.headers.get('content-type')?.includes('text/event-stream') === true
  if (!stream || !url.pathname.endsWith('/responses') || response.body === null) return response
  const decoder = new TextDecoder()
  let text = ''
  const checked = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        text += decoder.decode(chunk, { stream: true })
        controller.enqueue(chunk)
      },
      flush() {
        expectResponsesStreamOrder(text + decoder.decode())
      },
    }),
  )
  return new Response(checked, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
