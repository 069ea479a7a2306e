import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'
import { buildGateway, fetchThrough, gatewayUrl, keys, openAIClient } from '../helpers/gateway'

/**
 * A body's end-user field is the vendor's own (`user`, `metadata.user_id`), which the vendors
 * take in any form: a key without `perUser` limits is never refused for one the gateway cannot
 * hold as an end-user id; it is only not attributed. A key with `perUser` refuses it (tested with
 * the team budgets on Redis), since an id the meter cannot hold would escape its limits.
 */
describe('end-user fields of a body, for a key without perUser', () => {
  it('serves a name with a space or non-ASCII, unattributed, and attributes a valid one', async () => {
    const { gateway, events } = buildGateway()
    const client = openAIClient(gateway)
    for (const user of ['John Smith', 'José', 'x'.repeat(300)]) {
      const answer = await client.chat.completions.create({
        model: 'demo-echo',
        messages: [{ role: 'user', content: 'hi' }],
        user,
      })
      expect(answer.choices[0]!.message.content).toBeTruthy()
    }
    await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'hi' }],
      user: 'user-42',
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(events.map((event) => event.endUser)).toEqual([
      undefined,
      undefined,
      undefined,
      'user-42',
    ])
  })

  it('still refuses a wrong type, as the vendor does', async () => {
    const { gateway } = buildGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'anthropic',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key: keys.main }],
    })
    const client = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
    })
    const failure = await client.messages
      .create({
        model: 'demo-echo',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { user_id: 42 as unknown as string },
      })
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError)
    expect(String((failure as Error).message)).toContain('metadata.user_id')
  })
})
