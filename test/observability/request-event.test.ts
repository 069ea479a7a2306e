import { describe, expect, it } from 'vitest'
import { completeRequestEvent, startRequestEvent } from '../../src/observability/request-event'

describe('the request event', () => {
  it('starts with every field present, so that every request event has one shape', () => {
    const first = startRequestEvent('req_1', 'POST', '/v1/chat/completions', 'unknown', 1)
    const second = startRequestEvent('req_2', 'GET', '/v1/models', 'models', 2)
    expect(Object.keys(first)).toEqual(Object.keys(second))
    expect(first).toEqual({
      requestId: 'req_1',
      method: 'POST',
      path: '/v1/chat/completions',
      route: 'unknown',
      startedAt: 1,
    })
  })

  it('completes as a copy holding every field of the draft and its end', () => {
    const draft = startRequestEvent('req_1', 'POST', '/v1/messages', 'messages', 10)
    draft.key = 'sk-…abcd'
    draft.model = 'claude'
    draft.usage = {
      inputTokens: 3,
      outputTokens: 4,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 7,
    }
    const event = completeRequestEvent(draft, 200, 'ok', 25)
    expect(Object.keys(event).sort()).toEqual(
      [...Object.keys(draft), 'status', 'outcome', 'durationMs'].sort(),
    )
    expect(event).toMatchObject({ ...draft, status: 200, outcome: 'ok', durationMs: 25 })
    draft.model = 'changed later'
    expect(event.model).toBe('claude')
  })
})
