import { describe, expect, it } from 'vitest'
import { defaultOutputLimit, outputAllowance } from '../../src/relay/output-allowance'
import type { Route } from '../../src/routing/resolve-route'

const route: Route = {
  group: { id: 'g', protocol: 'anthropic', models: [], upstreams: [] },
  model: { name: 'claude', upstreamModel: 'claude-sonnet-4-5' },
}

describe('outputAllowance', () => {
  it('sends and reserves the client’s own limit when it set one', () => {
    expect(outputAllowance(300, route, { defaultOutputTokens: 4096 })).toEqual({
      limit: 300,
      requested: true,
      reserve: 300,
    })
  })

  it('sends and reserves the route’s default when the client set none: one notion for both', () => {
    expect(outputAllowance(undefined, route, { defaultOutputTokens: 2048 })).toEqual({
      limit: 2048,
      requested: false,
      reserve: 2048,
    })
    expect(defaultOutputLimit(route, { defaultOutputTokens: 2048 })).toBe(2048)
  })
})
