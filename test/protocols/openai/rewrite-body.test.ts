import { describe, expect, it } from 'vitest'
import { parseClientJson } from '../../../src/http/client-json'
import { findTopLevelMembers, scanJson } from '../../../src/internal/json-members'
import { rewriteOpenAIChatBody } from '../../../src/protocols/openai/rewrite-body'

function rewrite(text: string, upstreamModel: string, includeUsage: boolean) {
  return rewriteOpenAIChatBody(parseClientJson(text), { upstreamModel, includeUsage })
}

describe('top-level member scanner', () => {
  it('finds top-level members only, skipping strings with escaped quotes and nested keys', () => {
    const text =
      '{"messages":[{"role":"user","content":"say \\"model\\": x","model":"inner"}],"model" : "outer" ,"n":1}'
    const found = findTopLevelMembers(text)!
    const span = found.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"outer"')
    expect([...found.members.keys()]).toEqual(['messages', 'model', 'n'])
    expect(found.keysAgree).toBe(true)
  })

  it('takes the last of duplicate keys, as JSON.parse does, and says the keys disagree', () => {
    const text = '{"model":"a","model":"b"}'
    const found = findTopLevelMembers(text)!
    const span = found.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"b"')
    expect(found.keysAgree).toBe(false)
  })

  it('says the keys disagree when one is spelled with escapes', () => {
    expect(findTopLevelMembers('{"model":"a","mod\\u0065l":"b"}')!.keysAgree).toBe(false)
    expect(findTopLevelMembers('{"a":{"mod\\u0065l":1,"a":2}}')!.keysAgree).toBe(true)
  })

  it('handles strings ending in escaped backslashes', () => {
    const text = '{"a":"x\\\\","model":"m"}'
    const span = findTopLevelMembers(text)!.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"m"')
  })

  it('measures nesting outside strings, stopping past the limit', () => {
    expect(scanJson('{"a":[{"b":"[[[{{{"}]}').depth).toBe(3)
    expect(scanJson('1').depth).toBe(0)
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(scanJson(deep, 128)).toEqual({ depth: 129, object: undefined })
    expect(scanJson(deep).depth).toBe(100_000)
  })
})

describe('chat-completions body rewrite', () => {
  it('rewrites only the model value', () => {
    const text = '{"model":"fast","messages":[{"role":"user","content":"hi"}],"temperature":1.0}'
    expect(rewrite(text, 'gpt-4o-mini', false)).toBe(text.replace('"fast"', '"gpt-4o-mini"'))
  })

  it('keeps the text as it is when nothing changes', () => {
    const text = '{ "model" : "m",\n "messages":[{"role":"user","content":"hi"}]}'
    expect(rewrite(text, 'm', false)).toBe(text)
  })

  it('adds stream_options.include_usage on a stream that lacks it', () => {
    const text = '{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}'
    const result = rewrite(text, 'm', true)
    expect(result).toBe('{"stream_options":{"include_usage":true},' + text.slice(1))
    expect(JSON.parse(result)).toMatchObject({ stream_options: { include_usage: true } })
  })

  it('turns include_usage on inside existing stream options, keeping the others', () => {
    const text =
      '{"model":"m","stream":true,"stream_options":{"include_usage":false,"x":1},"messages":[{"role":"user","content":"hi"}]}'
    expect(JSON.parse(rewrite(text, 'm', true)).stream_options).toEqual({
      include_usage: true,
      x: 1,
    })
  })

  it('re-encodes a body whose model key is spelled with escapes', () => {
    const text = '{"model":"x","mod\\u0065l":"fast","messages":[{"role":"user","content":"hi"}]}'
    const sent = rewrite(text, 'gpt-4o-mini', false)
    expect(sent).toBe('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')
  })

  it('re-encodes a body with escaped stream_options, so usage is still asked for', () => {
    const text =
      '{"model":"m","stream":true,"stream_optio\\u006es":{"include_usage":false},"messages":[]}'
    expect(JSON.parse(rewrite(text, 'm', true))).toEqual({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [],
    })
  })

  it('re-encodes a body with a duplicate key even when the model needs no change', () => {
    // A parser that takes the first duplicate (some do) would otherwise read `expensive`.
    const text = '{"model":"expensive","model":"m","messages":[]}'
    expect(rewrite(text, 'm', false)).toBe('{"model":"m","messages":[]}')
  })

  it('keeps a member named __proto__ when it re-encodes', () => {
    const text = '{"__proto__":{"x":1},"model":"a","model":"b"}'
    expect(rewrite(text, 'up', false)).toBe('{"__proto__":{"x":1},"model":"up"}')
  })
})
