import { describe, expect, it } from 'vitest'
import type { KeyRecord } from '../../src/auth/key-store'
import { GatewayError } from '../../src/errors'
import type { GatewayRuntime, RequestScope } from '../../src/gateway-runtime'
import { admit } from '../../src/relay/admit'
import { createMemoryUsageMeter } from '../../src/usage/memory-usage-meter'
import type { MeteredSubject } from '../../src/usage/usage-meter'

const meter = createMemoryUsageMeter()
const runtime = { meter, now: () => Date.now() } as unknown as GatewayRuntime
const scope = () => ({ requestId: crypto.randomUUID(), event: {} }) as unknown as RequestScope
const key = { id: 'admit-key', groups: [] } as unknown as KeyRecord
const estimate = { inputTokens: 100, outputTokens: 0 }

async function refusalOf(subjects: readonly MeteredSubject[]): Promise<GatewayError> {
  try {
    await admit(runtime, scope(), key, { estimatedTokens: 100, estimate, subjects })
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('admission of the subjects a request is charged to', () => {
  it("passes the subjects to the meter, and a refusal's message names the subject", async () => {
    const team: MeteredSubject = { kind: 'team', id: 'data', limits: { concurrency: 1 } }
    const first = await admit(runtime, scope(), key, {
      estimatedTokens: 100,
      estimate,
      subjects: [team],
    })
    expect(first.reservation.subjects).toEqual([team])
    const refused = await refusalOf([team])
    expect(refused.message).toBe(
      'Team "data" already has 1 requests in flight, its concurrency limit. Please try again in 1s.',
    )
    const spent = await refusalOf([{ kind: 'organisation', id: 'acme', quotaTokens: 0 }])
    expect(spent.message).toBe('The organisation has used up its token quota. See GET /v1/usage.')
  })
})
