import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sessionHintOf } from '../../src/failover/session-hint'

const noHeaders = new Headers()

describe('sessionHintOf', () => {
  it('is undefined for a group without affinity, whatever the request carries', () => {
    expect(sessionHintOf('openai', { prompt_cache_key: 'k' }, noHeaders, undefined)).toBeUndefined()
  })

  it('reads each protocol’s own field', () => {
    expect(sessionHintOf('anthropic', { metadata: { user_id: 'u-1' } }, noHeaders, {})).toBe('u-1')
    expect(sessionHintOf('openai', { prompt_cache_key: 'p', user: 'u' }, noHeaders, {})).toBe('p')
    expect(sessionHintOf('openai', { user: 'u' }, noHeaders, {})).toBe('u')
    expect(sessionHintOf('responses', { prompt_cache_key: 'thread-1' }, noHeaders, {})).toBe(
      'thread-1',
    )
    expect(sessionHintOf('responses', { user: 'u2' }, noHeaders, {})).toBe('u2')
    expect(sessionHintOf('gemini', { contents: [] }, noHeaders, {})).toBeUndefined()
  })

  it('prefers the configured header, and falls back to the body without it', () => {
    const headers = new Headers({ 'x-session-id': 'from-header' })
    const affinity = { header: 'x-session-id' }
    expect(sessionHintOf('openai', { user: 'u' }, headers, affinity)).toBe('from-header')
    expect(sessionHintOf('gemini', {}, headers, affinity)).toBe('from-header')
    expect(sessionHintOf('openai', { user: 'u' }, noHeaders, affinity)).toBe('u')
  })

  it('ignores inherited members, non-strings and empty strings, and cuts long hints', () => {
    const inherited = Object.create({ prompt_cache_key: 'inherited' }) as object
    expect(sessionHintOf('openai', inherited, noHeaders, {})).toBeUndefined()
    expect(
      sessionHintOf('openai', { prompt_cache_key: 42, user: '' }, noHeaders, {}),
    ).toBeUndefined()
    expect(sessionHintOf('anthropic', { metadata: ['user_id'] }, noHeaders, {})).toBeUndefined()
    expect(sessionHintOf('openai', { user: 'x'.repeat(5_000) }, noHeaders, {})).toHaveLength(512)
  })

  it('never throws on any client JSON', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('openai', 'anthropic', 'gemini', 'responses' as const),
        fc.jsonValue(),
        (protocol, body) => {
          const hint = sessionHintOf(protocol, body, noHeaders, {})
          return hint === undefined || (typeof hint === 'string' && hint.length > 0)
        },
      ),
    )
  })
})
