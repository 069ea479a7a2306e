import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import {
  createNodeFetch,
  googleDefaultCredentials,
  nodeCloudCredentials,
  serveGateway,
} from '../../src/node/index'
import { configError } from '../helpers/config-error'
import {
  makeServiceAccount,
  startGoogleTokenFake,
  startMetadataFake,
  type GoogleTokenFake,
} from '../helpers/fakes/google-token-fake'
import { startVertexFake } from '../helpers/fakes/vertex-fake'
import { keys } from '../helpers/gateway'

/**
 * Application Default Credentials on Node, against loopback fakes only: a temporary home holds
 * gcloud's file, `GCE_METADATA_HOST` points at a fake metadata server, and every chain is given
 * its environment explicitly (never the process's) and a fetch that dials loopback only: the default
 * metadata address is never dialled, and the test fails if anything tries.
 */
let tokens: GoogleTokenFake
let home: string
const metadataTokens = new Set<string>()
let metadata: Awaited<ReturnType<typeof startMetadataFake>>

beforeAll(async () => {
  tokens = await startGoogleTokenFake()
  home = mkdtempSync(join(tmpdir(), 'mg-google-'))
  metadata = await startMetadataFake({
    issue: () => {
      const token = `ya29.metadata-${metadataTokens.size + 1}`
      metadataTokens.add(token)
      return token
    },
  })
})
afterAll(async () => {
  rmSync(home, { recursive: true, force: true })
  await tokens.close()
  await metadata.close()
})

const scopes = ['https://www.googleapis.com/auth/cloud-platform']

/** Hosts a chain tried to reach beyond this machine: refused, and asserted empty at the end. */
const dialledElsewhere: string[] = []
const loopbackFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
    dialledElsewhere.push(url.host)
    return Promise.reject(new Error(`the test refuses to dial ${url.host}`))
  }
  return fetch(input, init)
}
afterAll(() => expect(dialledElsewhere).toEqual([]))

describe('Application Default Credentials', () => {
  it('read GOOGLE_APPLICATION_CREDENTIALS: a service-account key, exchanged with a signed JWT', async () => {
    const account = makeServiceAccount(tokens.tokenUri)
    tokens.register(account)
    const path = join(home, 'sa.json')
    writeFileSync(path, JSON.stringify(account.json))
    const chain = googleDefaultCredentials({
      fetch: loopbackFetch,
      env: { GOOGLE_APPLICATION_CREDENTIALS: path, METADATA_SERVER_DETECTION: 'none' },
      home,
    })
    const before = tokens.fetches
    const got = await chain(scopes)
    expect(tokens.isValid(got.value)).toBe(true)
    expect(got.expiresAt! - Date.now()).toBeGreaterThan(3_500_000)
    expect(tokens.fetches - before).toBe(1)
  })

  it("read gcloud's application_default_credentials.json: an authorized_user refresh grant", async () => {
    tokens.registerUser('client-1.apps.googleusercontent.com', 'client-secret-x', '1//refresh-y')
    const dir = join(home, '.config', 'gcloud')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'application_default_credentials.json'),
      JSON.stringify({
        type: 'authorized_user',
        client_id: 'client-1.apps.googleusercontent.com',
        client_secret: 'client-secret-x',
        refresh_token: '1//refresh-y',
        token_uri: tokens.tokenUri,
      }),
    )
    try {
      const got = await googleDefaultCredentials({ fetch: loopbackFetch, env: {}, home })(scopes)
      expect(tokens.isValid(got.value)).toBe(true)
    } finally {
      rmSync(join(home, '.config'), { recursive: true, force: true })
    }
  })

  it('fall back on the metadata server at GCE_METADATA_HOST, which wants Metadata-Flavor', async () => {
    const got = await googleDefaultCredentials({
      fetch: loopbackFetch,
      env: { GCE_METADATA_HOST: metadata.host },
      home,
    })(scopes)
    expect(metadataTokens.has(got.value)).toBe(true)
    const bare = await fetch(
      `http://${metadata.host}/computeMetadata/v1/instance/service-accounts/default/token`,
    )
    expect(bare.status).toBe(403)
    expect(metadata.refused).toBe(1)
  })

  it('refuse a malformed file by its path, never quoting it, and no source at all', async () => {
    const path = join(home, 'broken.json')
    writeFileSync(path, JSON.stringify({ type: 'service_account', private_key: 'secret-material' }))
    const broken = googleDefaultCredentials({
      fetch: loopbackFetch,
      env: { GOOGLE_APPLICATION_CREDENTIALS: path },
      home,
    })
    await expect(broken(scopes)).rejects.toThrow(`${path} is a service-account key without`)
    await expect(broken(scopes)).rejects.not.toThrow('secret-material')
    const none = googleDefaultCredentials({
      fetch: loopbackFetch,
      env: { METADATA_SERVER_DETECTION: 'none' },
      home,
    })
    await expect(none(scopes)).rejects.toThrow('No Google credentials')
  })
})

describe('a Vertex upstream on Node', () => {
  it('reads a serviceAccount key file path, and calls Claude with its token', async () => {
    const account = makeServiceAccount(tokens.tokenUri)
    tokens.register(account)
    const path = join(home, 'vertex-sa.json')
    writeFileSync(path, JSON.stringify(account.json))
    const vertex = await startVertexFake({
      project: 'p',
      region: 'global',
      isValid: tokens.isValid,
    })
    const served = await serveGateway(
      createGateway({
        groups: [
          {
            id: 'claude',
            protocol: 'anthropic',
            models: [{ name: 'claude-haiku-4-5', upstreamModel: 'claude-haiku-4-5@20251001' }],
            upstreams: [
              {
                provider: 'vertex',
                project: 'p',
                region: 'global',
                baseUrl: vertex.url,
                serviceAccount: path,
              },
            ],
          },
        ],
        keys: [{ key: keys.main }],
        fetch: createNodeFetch(),
        cloudCredentials: nodeCloudCredentials({
          google: { fetch: loopbackFetch, env: { METADATA_SERVER_DETECTION: 'none' }, home },
        }),
      }),
      { port: 0 },
    )
    try {
      const answer = await new Anthropic({
        apiKey: keys.main,
        baseURL: served.url,
      }).messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      expect(answer.content[0]!.type).toBe('text')
      expect(vertex.calls.at(-1)!.path).toBe(
        '/v1/projects/p/locations/global/publishers/anthropic/models/claude-haiku-4-5@20251001:rawPredict',
      )
    } finally {
      await served.close()
      await vertex.close()
    }
  })

  it('uses Application Default Credentials when the entry gives none', async () => {
    const vertex = await startVertexFake({
      project: 'p',
      region: 'us',
      isValid: (token) => metadataTokens.has(token),
    })
    const served = await serveGateway(
      createGateway({
        groups: [
          {
            id: 'claude',
            protocol: 'anthropic',
            models: ['claude-sonnet-4-5@20250929'],
            upstreams: [{ provider: 'vertex', project: 'p', region: 'us', baseUrl: vertex.url }],
          },
        ],
        keys: [{ key: keys.main }],
        fetch: createNodeFetch(),
        cloudCredentials: nodeCloudCredentials({
          google: { fetch: loopbackFetch, env: { GCE_METADATA_HOST: metadata.host }, home },
        }),
      }),
      { port: 0 },
    )
    try {
      const answer = await new Anthropic({
        apiKey: keys.main,
        baseURL: served.url,
      }).messages.create({
        model: 'claude-sonnet-4-5@20250929',
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      expect(answer.content[0]!.type).toBe('text')
    } finally {
      await served.close()
      await vertex.close()
    }
  })

  it('refuses a key file that is missing or malformed, at the serviceAccount field', () => {
    const path = join(home, 'not-a-key.json')
    writeFileSync(path, '{"type":"service_account","client_email":"x@y"}')
    const entry = (serviceAccount: string) => ({
      groups: [
        {
          id: 'g',
          protocol: 'gemini',
          models: ['gemini-2.5-flash'],
          upstreams: [{ provider: 'vertex', project: 'p', region: 'global', serviceAccount }],
        },
      ],
      keys: [{ key: keys.main }],
      cloudCredentials: nodeCloudCredentials(),
    })
    expect(configError(entry(path)).issues[0]).toEqual({
      path: 'groups[0].upstreams[0].serviceAccount',
      message: expect.stringContaining('without a PKCS#8 PEM `private_key`'),
    })
    expect(configError(entry(join(home, 'absent.json'))).issues[0]!.message).toContain('(ENOENT)')
  })
})

describe('the Google token endpoint fake', () => {
  it('refuses a JWT signed by another key, and one living over an hour', async () => {
    const { createSign } = await import('node:crypto')
    const account = makeServiceAccount(tokens.tokenUri)
    const impostor = makeServiceAccount(tokens.tokenUri, account.json['client_email'])
    tokens.register(account)
    const assertion = (privateKey: string, lifetime: number) => {
      const iat = Math.floor(Date.now() / 1000)
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
      const input = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({
        iss: account.json['client_email'],
        aud: tokens.tokenUri,
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        iat,
        exp: iat + lifetime,
      })}`
      const signature = createSign('RSA-SHA256')
        .update(input)
        .sign(privateKey)
        .toString('base64url')
      return `${input}.${signature}`
    }
    const post = (jwt: string) =>
      fetch(tokens.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: jwt,
        }),
      })
    expect((await post(assertion(account.json['private_key']!, 3600))).status).toBe(200)
    const foreign = await post(assertion(impostor.json['private_key']!, 3600))
    expect(foreign.status).toBe(400)
    expect(await foreign.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid JWT Signature.',
    })
    const long = await post(assertion(account.json['private_key']!, 3601))
    expect((await long.json()).error_description).toContain('short-lived token (60 minutes)')
  })
})
