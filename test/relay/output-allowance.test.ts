import { describe, expect, it } from 'vitest'
import { defaultOutputLimit, outputAllowance } from '../../src/relay/output-allowance'
import type { Route } from '../../src/routing/resolve-route'

const group = { id: 'g', protocol: 'anthropic' as const, models: [], upstreams: [] }
const route: Route = { group, model: { name: 'claude', upstreamModel: 'claude-sonnet-4-5' } }
const unknownModel: Route = { group, model: { name: 'local', upstreamModel: 'my-local-llm' } }

describe('outputAllowance', () => {
  it('sends and reserves the client’s own limit when it set one', () => {
    expect(outputAllowance(300, route, { defaultOutputTokens: 4096 })).toEqual({
      limit: 300,
      requested: true,
      reserve: 300,
    })
  })

  it('sends and reserves the model’s own maximum output when the client set none: one notion for both', () => {
    expect(outputAllowance(undefined, route, { defaultOutputTokens: 2048 })).toEqual({
      limit: 64_000,
      requested: false,
      reserve: 64_000,
    })
  })

  it('takes a model entry’s profile override, and the configured default for a model the table does not know', () => {
    const overridden: Route = {
      group,
      model: { ...route.model, profile: { maxOutputTokens: 500 } },
    }
    expect(defaultOutputLimit(overridden, { defaultOutputTokens: 2048 })).toBe(500)
    expect(outputAllowance(undefined, unknownModel, { defaultOutputTokens: 2048 })).toEqual({
      limit: 2048,
      requested: false,
      reserve: 2048,
    })
  })
})
