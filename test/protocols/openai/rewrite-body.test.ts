import { describe, expect, it } from 'vitest'
import { findTopLevelMembers } from '../../../src/internal/json-members'
import { openAIChatRequestSchema } from '../../../src/protocols/openai/request-schema'
import { rewriteOpenAIChatBody } from '../../../src/protocols/openai/rewrite-body'

function rewrite(text: string, upstreamModel: string, includeUsage: boolean) {
  const request = openAIChatRequestSchema.parse(JSON.parse(text))
  return rewriteOpenAIChatBody(text, request, { upstreamModel, includeUsage })
}

describe('top-level member scanner', () => {
  it('finds top-level members only, skipping strings with escaped quotes and nested keys', () => {
    const text =
      '{"messages":[{"role":"user","content":"say \\"model\\": x","model":"inner"}],"model" : "outer" ,"n":1}'
    const found = findTopLevelMembers(text)!
    const span = found.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"outer"')
    expect([...found.members.keys()]).toEqual(['messages', 'model', 'n'])
  })

  it('takes the last of duplicate keys, as JSON.parse does', () => {
    const text = '{"model":"a","model":"b"}'
    const span = findTopLevelMembers(text)!.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"b"')
  })

  it('handles strings ending in escaped backslashes', () => {
    const text = '{"a":"x\\\\","model":"m"}'
    const span = findTopLevelMembers(text)!.members.get('model')!
    expect(text.slice(span.valueStart, span.valueEnd)).toBe('"m"')
  })
})

describe('chat-completions body rewrite', () => {
  it('rewrites only the model value', () => {
    const text = '{"model":"fast","messages":[{"role":"user","content":"hi"}],"temperature":1.0}'
    expect(rewrite(text, 'gpt-4o-mini', false)).toBe(text.replace('"fast"', '"gpt-4o-mini"'))
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

  it('falls back to re-encoding when a key is spelled with escapes', () => {
    const text = '{"mod\\u0065l":"fast","messages":[{"role":"user","content":"hi"}]}'
    expect(JSON.parse(rewrite(text, 'gpt-4o-mini', false))).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
  })
})
