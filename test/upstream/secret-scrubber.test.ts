import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../src/errors'
import { createSecretScrubber, scrubGatewayError } from '../../src/upstream/secret-scrubber'

const key = 'sk-proj-Q7vX2mK9pL4rT8wZ1nB6cD3fG5hJ0kAa'
const scrub = createSecretScrubber([key, 'tok_Z8x2C6v9B1n4', 'none'])

describe('secret scrubber', () => {
  it('replaces the whole key, and the whole word around it', () => {
    expect(scrub(`Incorrect API key provided: ${key}.`)).toBe(
      'Incorrect API key provided: [redacted]',
    )
    expect(scrub(`?key=${key}&alt=sse`)).toBe('[redacted]')
  })

  it('replaces any 12 characters of it: a quoted prefix, a key cut short', () => {
    expect(scrub(`key ${key.slice(0, 12)} is wrong`)).toBe('key [redacted] is wrong')
    expect(scrub(`ends in ${key.slice(-14)}`)).toBe('ends in [redacted]')
  })

  it('replaces masked renderings that show its first 4+ or last 3+ characters', () => {
    expect(scrub(`provided: ${key.slice(0, 7)}***${key.slice(-4)}.`)).toBe('provided: [redacted]')
    expect(scrub(`provided: sk-…${key.slice(-3)}`)).toBe('provided: [redacted]')
    expect(scrub(`provided: ${key.slice(0, 10)}••••`)).toBe('provided: [redacted]')
  })

  it('leaves masks that show nothing of a configured secret, and short runs of it', () => {
    expect(scrub('provided: sk-zzzz***9999, or sk-proj- keys')).toBe(
      'provided: sk-zzzz***9999, or sk-proj- keys',
    )
  })

  it('matches a short secret (a placeholder) only as a whole word', () => {
    expect(scrub('nonexistent model; key none. none!')).toBe(
      'nonexistent model; key [redacted] [redacted]',
    )
  })

  it('keeps JSON valid, escapes next to the secret included', () => {
    const json = JSON.stringify({ message: `bad "${key}"\n${key}\u00e9${key}`, code: 'invalid' })
    const clean = scrub(json)
    expect(clean).not.toContain(key.slice(8, 20))
    expect(JSON.parse(clean)).toEqual({
      message: 'bad "[redacted]"\n[redacted]',
      code: 'invalid',
    })
  })

  it('scrubs an error’s message and upstream body, and drops the original as cause', () => {
    const body = { error: { message: `no ${key}`, type: 'invalid_request_error' } }
    const error = new GatewayError('upstream_error', `no ${key}`, {
      status: 400,
      upstream: { status: 400, protocol: 'openai', body },
      cause: new Error(key),
    })
    const clean = scrubGatewayError(error, scrub)
    expect(clean).toMatchObject({
      code: 'upstream_error',
      status: 400,
      message: 'no [redacted]',
      upstream: {
        status: 400,
        protocol: 'openai',
        body: { error: { message: 'no [redacted]', type: 'invalid_request_error' } },
      },
    })
    expect(clean.cause).toBeUndefined()
    const harmless = new GatewayError('upstream_error', 'nothing secret')
    expect(scrubGatewayError(harmless, scrub)).toBe(harmless)
  })
})

describe('secret scrubber, for any secret and any message around it', () => {
  const secretChars = fc.constantFrom(
    ...'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789-_',
  )
  const secretArbitrary = fc.string({ unit: secretChars, minLength: 20, maxLength: 64 })
  /** The secret whole, cut to 12+ characters, or masked in the middle, inside any text. */
  const leakArbitrary = (secret: string) =>
    fc.oneof(
      fc.constant(secret),
      fc
        .integer({ min: 0, max: secret.length - 12 })
        .chain((start) =>
          fc
            .integer({ min: start + 12, max: secret.length })
            .map((end) => secret.slice(start, end)),
        ),
      fc.constant(`${secret.slice(0, 6)}***${secret.slice(-4)}`),
    )

  it('leaves no 12 characters of the secret, and every JSON text stays valid JSON', () => {
    fc.assert(
      fc.property(
        secretArbitrary.chain((secret) =>
          fc.tuple(fc.constant(secret), leakArbitrary(secret), fc.string(), fc.string()),
        ),
        ([secret, leak, before, after]) => {
          const scrub = createSecretScrubber([secret])
          const message = `${before}${leak}${after}`
          const json = JSON.stringify({ error: { message, code: 'invalid_api_key' } })
          for (const text of [message, json]) {
            const clean = scrub(text)
            for (let start = 0; start + 12 <= secret.length; start += 1) {
              expect(clean).not.toContain(secret.slice(start, start + 12))
            }
          }
          expect(() => JSON.parse(scrub(json))).not.toThrow()
        },
      ),
      { seed: 7, numRuns: 500 },
    )
  })
})
