import * as z from 'zod/mini'
import { describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { configError } from '../helpers/config-error'

const group = {
  id: 'demo',
  protocol: 'openai',
  models: ['demo-echo'],
  upstreams: [{ provider: 'mock' }],
} as const
const key = 'sk-config-messages-0123456789'

function issuesOf(config: unknown): { path: string; message: string }[] {
  return configError(config).issues.map((issue) => ({ ...issue }))
}

// The config schemas moved from classic zod to zod/mini (ADR 0016); these are the messages users
// saw before the move, word for word, for zod's own checks and the gateway's.
describe('config messages (zod/mini, English)', () => {
  it("keeps zod's English messages for its own checks", () => {
    const issues = issuesOf({
      groupIdRouting: 'yes',
      maxResponseBytes: 1.5,
      groups: [
        {
          ...group,
          upstreams: [
            { provider: 'mock', weight: 0, chunkDelayMs: 1.5 },
            { baseUrl: 'x', extra: 1 },
          ],
        },
      ],
      keys: [{ key, limits: { requestsPerMinute: 0, tokensPerDay: -1 } }],
      env: 5,
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'groupIdRouting', message: 'Invalid input: expected boolean, received string' },
        { path: 'maxResponseBytes', message: 'Invalid input: expected int, received number' },
        { path: 'groups[0].upstreams[0].weight', message: 'Too small: expected number to be >0' },
        {
          path: 'groups[0].upstreams[0].chunkDelayMs',
          message: 'Invalid input: expected int, received number',
        },
        { path: 'groups[0].upstreams[1].baseUrl', message: 'expected an http(s) URL' },
        { path: 'groups[0].upstreams[1]', message: 'Unrecognized key: "extra"' },
        {
          path: 'keys[0].limits.requestsPerMinute',
          message: 'Too small: expected number to be >0',
        },
        { path: 'keys[0].limits.tokensPerDay', message: 'Too small: expected number to be >=0' },
        { path: 'env', message: 'Invalid input: expected record, received number' },
      ]),
    )
  })

  it('names the field inside a model profile and a state section', () => {
    const issues = issuesOf({
      groups: [
        {
          ...group,
          models: [
            {
              name: 'a',
              profile: { reasoning: { kind: 'budget', min: 5, max: 2, canDisable: 1 } },
            },
            { name: 'b', profile: { maxTemperature: 3, contextWindow: 10, maxOutputTokens: 20 } },
          ],
        },
      ],
      keys: [{ key }],
      state: { redisTimeoutMs: 70_000, onFailure: { budgets: 'x' } },
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          path: 'groups[0].models[0].profile.reasoning.canDisable',
          message: 'Invalid input: expected boolean, received number',
        },
        {
          path: 'groups[0].models[1].profile.maxTemperature',
          message: 'Too big: expected number to be <=2',
        },
        { path: 'state.redisTimeoutMs', message: 'Too big: expected number to be <=60000' },
        {
          path: 'state.onFailure.budgets',
          message: 'Invalid option: expected one of "closed"|"open"',
        },
      ]),
    )
  })

  it('reports a forward-list problem and the cross-field checks together', () => {
    const issues = issuesOf({
      groups: [group, group],
      keys: [{ key, groups: ['nope'] }],
      forwardHeaders: ['X-Request-Id', 'Authorization', 'X-Trace'],
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          path: 'forwardHeaders[0]',
          message: 'the gateway sends its own request id in this header',
        },
        { path: 'forwardHeaders[1]', message: 'credential headers are never forwarded' },
        { path: 'groups[1].id', message: 'duplicate group id "demo"' },
        { path: 'keys[0].groups[0]', message: 'unknown group "nope"' },
      ]),
    )
    expect(issues.some((issue) => issue.path === 'forwardHeaders[2]')).toBe(false)
  })

  it('answers a config that is not an object with a config error, not a TypeError', () => {
    expect(issuesOf(null)).toEqual([
      { path: '', message: 'Invalid input: expected object, received null' },
    ])
    expect(issuesOf(5)).toEqual([
      { path: '', message: 'Invalid input: expected object, received number' },
    ])
  })

  it("leaves the application's own zod/mini messages as they were (no global locale set)", () => {
    const before = z.safeParse(z.string(), 1).error?.issues[0]?.message
    issuesOf({ groups: [group], keys: [{ key: 'sk-short' }] })
    createGateway({ groups: [group], keys: [{ key }] })
    expect(z.safeParse(z.string(), 1).error?.issues[0]?.message).toBe(before)
  })
})
