import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../src/errors'
import { createCredentialCache } from '../../src/upstream/credentials/credential-cache'
import { sharedCredentialCaches } from '../../src/upstream/credentials/shared-credential-cache'
import { readTokenAnswer } from '../../src/upstream/credentials/token-answer'
import { tokenSecrets } from '../../src/upstream/credentials/token-secrets'

const json = (body: unknown, status = 200) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  })

describe('shared credential caches', () => {
  it('make one cache per owner and key, and keep registers apart', async () => {
    const shared = sharedCredentialCaches<string>()
    const other = sharedCredentialCaches<string>()
    const owner = () => 'a token'
    let made = 0
    const make = () => {
      const value = `token-${++made}`
      return createCredentialCache(async () => ({ value }))
    }
    const first = shared(owner, make)
    expect(shared(owner, make)).toBe(first)
    expect(shared(owner, make, '')).toBe(first)
    const scoped = shared(owner, make, 'scope-a')
    expect(scoped).not.toBe(first)
    expect(shared(owner, make, 'scope-a')).toBe(scoped)
    expect(shared(() => 'another owner', make)).not.toBe(first)
    expect(other(owner, make)).not.toBe(first)
    expect(made).toBe(4)
    expect(await first.get()).toBe('token-1')
  })
})

describe('token endpoint answers', () => {
  it('give the access token of a 2xx answer, with its fields', async () => {
    const answer = await readTokenAnswer(json({ access_token: 'ya29.abc', expires_in: 3599 }))
    expect(answer).toEqual({
      body: { access_token: 'ya29.abc', expires_in: 3599 },
      token: 'ya29.abc',
    })
  })

  it('give no token for a refusal, an empty token, an array or a page that is not JSON', async () => {
    const refused = await readTokenAnswer(
      json({ error: 'invalid_grant', access_token: 'ignored' }, 400),
    )
    expect(refused).toEqual({
      body: { error: 'invalid_grant', access_token: 'ignored' },
      token: undefined,
    })
    expect((await readTokenAnswer(json({ access_token: '' }))).token).toBeUndefined()
    expect((await readTokenAnswer(json({ access_token: 42 }))).token).toBeUndefined()
    expect(await readTokenAnswer(json([{ access_token: 'x' }]))).toEqual({
      body: {},
      token: undefined,
    })
    expect(await readTokenAnswer(json('<html>502 Bad Gateway</html>', 502))).toEqual({
      body: {},
      token: undefined,
    })
    expect(await readTokenAnswer(new Response(null, { status: 204 }))).toEqual({
      body: {},
      token: undefined,
    })
  })

  it('refuse an answer over 64 KiB as the upstream failing', async () => {
    const padded = json({ access_token: 'ya29.abc', padding: 'x'.repeat(64 * 1024) })
    const error = await readTokenAnswer(padded).catch((caught: unknown) => caught)
    expect(GatewayError.isInstance(error)).toBe(true)
    expect((error as GatewayError).message).toContain('too large')
  })
})

describe('token secrets', () => {
  it('are the fixed ones and the token held now, the same array while it is the same', async () => {
    let issued = 0
    const cache = createCredentialCache(async () => ({ value: `token-${++issued}` }))
    const secrets = tokenSecrets(cache, ['client-secret-value'])
    const before = secrets()
    expect(before).toEqual(['client-secret-value'])
    await cache.get()
    const held = secrets()
    expect(held).toEqual(['client-secret-value', 'token-1'])
    expect(secrets()).toBe(held)
    cache.invalidate('token-1')
    await cache.get()
    expect(secrets()).toEqual(['client-secret-value', 'token-2'])
  })

  it('leave an empty token out', async () => {
    const cache = createCredentialCache(async () => ({ value: '' }))
    const secrets = tokenSecrets(cache, [])
    await cache.get()
    expect(secrets()).toEqual([])
  })
})
