import { describe, expect, it } from 'vitest'
import type { MetricLabels, MetricName } from '../../src/observability/metric-catalogue'
import type { RequestEvent } from '../../src/observability/request-event'
import { measureRequest } from '../../src/observability/request-measures'

/** Issue 33: the team id is a bounded label of spend and refusals; a key or an end user never is. */
function measures(event: RequestEvent) {
  const added: { name: MetricName; labels: MetricLabels }[] = []
  measureRequest(event, {
    add: (name, _value, labels) => added.push({ name, labels }),
    record: () => undefined,
  })
  return added
}

const base: RequestEvent = {
  requestId: 'req_1',
  method: 'POST',
  path: '/v1/chat/completions',
  route: 'chat.completions',
  keyId: 'secret-key-id',
  team: 'data',
  endUser: 'alice@example.com',
  status: 200,
  outcome: 'ok',
  startedAt: 0,
  durationMs: 10,
}

describe('metrics of a team key', () => {
  it('label spend with the team, never the key or the end user', () => {
    const added = measures({
      ...base,
      group: 'gpt',
      model: 'gpt-test',
      upstreamModel: 'gpt-test',
      cost: { nanoUsd: 5000 } as RequestEvent['cost'],
    })
    const spend = added.find((measure) => measure.name === 'model_gateway.spend')
    expect(spend?.labels).toEqual({
      'model_gateway.group': 'gpt',
      'model_gateway.upstream_model': 'gpt-test',
      'model_gateway.team': 'data',
    })
    const text = JSON.stringify(added)
    expect(text).not.toContain('secret-key-id')
    expect(text).not.toContain('alice')
  })

  it('label a refusal with its level and the team', () => {
    const added = measures({
      ...base,
      status: 429,
      outcome: 'error',
      refusal: { limit: 'usdPerMonth', reason: 'budget_exceeded', level: 'team' },
    })
    expect(
      added.find((measure) => measure.name === 'model_gateway.limit.rejections')?.labels,
    ).toEqual({
      'model_gateway.limit': 'usdPerMonth',
      'model_gateway.limit.reason': 'budget_exceeded',
      'model_gateway.limit.level': 'team',
      'model_gateway.team': 'data',
    })
  })
})
