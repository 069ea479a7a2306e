import { describe, expect, it } from 'vitest'
import {
  CallHeaders,
  gatewayCall,
  headerRecordKey,
  headerRecordOf,
} from '../../src/upstream/call-headers'
import type { UpstreamCall } from '../../src/upstream/provider'
import { buildUpstreamHeaders, setRequestIdHeaders } from '../../src/upstream/upstream-headers'

const fields = { operation: 'chat-completions', model: 'm', body: '{}', stream: true } as const

describe('call headers', () => {
  it('reads and writes names case-insensitively, in a record without a prototype', () => {
    const headers = new CallHeaders()
    headers.set('X-Trace', 'a')
    headers.set('x-trace', 'b')
    headers.set('__proto__', 'c')
    expect(headers.get('X-TRACE')).toBe('b')
    expect(headers.has('constructor')).toBe(false)
    expect(headers.get('toString')).toBeNull()
    headers.delete('X-Trace')
    expect(headers.has('x-trace')).toBe(false)
    expect(Object.getPrototypeOf(headers.record)).toBeNull()
    expect([...headers.toHeaders()]).toEqual([['__proto__', 'c']])
  })

  it('builds the forwarded allow-list and the request ids as the Headers did', () => {
    const client = new Headers({ 'OpenAI-Beta': 'assistants=v2', 'x-other': 'no' })
    const headers = buildUpstreamHeaders(client, ['openai-beta', 'X-Absent'])
    setRequestIdHeaders(headers, 'req-1')
    expect(Object.entries(headers.record)).toEqual([
      ['content-type', 'application/json'],
      ['openai-beta', 'assistants=v2'],
      ['x-client-request-id', 'req-1'],
      ['x-request-id', 'req-1'],
    ])
  })

  it('gives the direct path the record, and a provider that reads `headers` a Headers', () => {
    const headers = new CallHeaders()
    headers.set('content-type', 'application/json')
    let signals = 0
    const call = gatewayCall(fields, headers, () => {
      signals += 1
      return new AbortController().signal
    })
    // Unread: the direct path copies the record (a fresh one, so its own headers stay its own).
    const direct = headerRecordOf(call)
    expect(direct).toEqual({ 'content-type': 'application/json' })
    direct['authorization'] = 'Bearer k'
    expect(headers.has('authorization')).toBe(false)
    expect(signals).toBe(0)
    // Read: the same Headers each time, and a change to it is what is sent.
    const read = call.headers
    expect(read).toBeInstanceOf(Headers)
    expect(call.headers).toBe(read)
    read.set('x-added', '1')
    expect(call[headerRecordKey]).toBeUndefined()
    expect(headerRecordOf(call)).toEqual({ 'content-type': 'application/json', 'x-added': '1' })
    expect(call.signal).toBeInstanceOf(AbortSignal)
    expect(signals).toBe(1)
  })

  it('reads a call built elsewhere from its Headers', () => {
    const call: UpstreamCall = {
      ...fields,
      headers: new Headers({ 'X-Custom': 'v' }),
      signal: new AbortController().signal,
    }
    expect(headerRecordOf(call)).toEqual({ 'x-custom': 'v' })
  })
})
