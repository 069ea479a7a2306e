import { describe, expect, it } from 'vitest'
import { createHttpProvider } from '../../src/upstream/http-provider'
import type { UpstreamCall } from '../../src/upstream/provider'

const pool = ['sk-ant-pooled-key-one-00000000001111', 'sk-ant-pooled-key-two-00000000002222']

function call(credential: number | undefined): UpstreamCall {
  return {
    operation: 'messages',
    model: 'claude',
    body: '{}',
    headers: new Headers({ 'content-type': 'application/json' }),
    stream: false,
    signal: new AbortController().signal,
    credential,
  }
}

describe('HTTP provider key pools', () => {
  it('sends the pooled key the call names, the first when it names none, and lists only masked forms', async () => {
    const sent: (string | null)[] = []
    const provider = createHttpProvider({
      id: 'a',
      protocol: 'anthropic',
      baseUrl: 'https://anthropic.test',
      apiKeys: pool,
      fetch: async (_input, init) => {
        sent.push(new Headers(init?.headers).get('x-api-key'))
        return Response.json({})
      },
    })
    await provider.send(call(1))
    await provider.send(call(0))
    await provider.send(call(undefined))
    expect(sent).toEqual([pool[1], pool[0], pool[0]])
    expect(provider.credentials).toEqual(['sk-…1111', 'sk-…2222'])
    expect(provider.secrets).toEqual(pool)
  })

  it('an upstream with one apiKey ignores credential and has no pool', async () => {
    const sent: (string | null)[] = []
    const provider = createHttpProvider({
      id: 'a',
      protocol: 'openai',
      baseUrl: 'https://openai.test/v1',
      apiKey: 'sk-single-key-000000000000000000',
      fetch: async (_input, init) => {
        sent.push(new Headers(init?.headers).get('authorization'))
        return Response.json({})
      },
    })
    await provider.send({ ...call(1), operation: 'chat-completions' })
    expect(sent).toEqual(['Bearer sk-single-key-000000000000000000'])
    expect(provider.credentials).toBeUndefined()
  })
})
