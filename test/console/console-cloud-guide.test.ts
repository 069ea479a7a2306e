import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createConsole } from '../../src/console/index'
import { guideSnippets } from '../../src/console/guide/snippets'
import { createNodeFetch, serveGateway, type ServedGateway } from '../../src/node/index'
import { startAzureFake, startEntraFake, type TokenRegistry } from '../helpers/fakes/azure-fakes'
import { makeServiceAccount, startGoogleTokenFake } from '../helpers/fakes/google-token-fake'
import { startVertexFake } from '../helpers/fakes/vertex-fake'
import { deployments, entraApp } from '../helpers/azure-gateway'
import { adminToken, ConsoleClient } from './console-setup'

/**
 * The console's call guide with groups on the clouds: its model picker lists their call names
 * (from the catalogue), and the snippets it fills in with them answer, run as shown, from the
 * loopback Azure OpenAI and Vertex AI fakes; the notes say what to leave unset for those groups.
 */
const run = promisify(execFile)
const apiKey = 'sk-cloud-guide-key-0123456789'
let gateway: ReturnType<typeof createGateway>
let served: ServedGateway
const closers: (() => Promise<void>)[] = []

beforeAll(async () => {
  const azureTokens: TokenRegistry = new Map()
  const entra = await startEntraFake({ ...entraApp, tokens: azureTokens })
  const azure = await startAzureFake({ deployments, tokens: azureTokens })
  const google = await startGoogleTokenFake()
  const vertex = await startVertexFake({ project: 'p', region: 'global', isValid: google.isValid })
  closers.push(entra.close, azure.close, google.close, vertex.close)
  const account = makeServiceAccount(google.tokenUri)
  google.register(account)
  const onVertex = {
    provider: 'vertex' as const,
    project: 'p',
    region: 'global',
    baseUrl: vertex.url,
    serviceAccount: account.json,
  }
  gateway = createGateway({
    groups: [
      {
        id: 'azure',
        protocol: 'openai',
        models: [{ name: 'azure-mini', upstreamModel: 'prod-mini' }],
        upstreams: [
          {
            provider: 'azure',
            baseUrl: azure.origin,
            entra: { ...entraApp, authorityHost: entra.origin },
          },
        ],
      },
      {
        id: 'vertex-claude',
        protocol: 'anthropic',
        models: [{ name: 'vertex-sonnet', upstreamModel: 'claude-sonnet-4-5@20250929' }],
        upstreams: [onVertex],
      },
      {
        id: 'vertex-gemini',
        protocol: 'gemini',
        models: ['gemini-2.5-flash'],
        upstreams: [onVertex],
      },
    ],
    keys: [{ key: apiKey, name: 'guide' }],
    fetch: createNodeFetch(),
  })
  served = await serveGateway(gateway, { port: 0 })
})
afterAll(async () => {
  await served?.close()
  await Promise.all(closers.map((close) => close()))
})

describe('the call guide with groups on Azure OpenAI and Vertex AI', () => {
  it('offers their call names and says what to leave unset for them', async () => {
    const admin = new ConsoleClient(createConsole(gateway, { auth: { adminTokens: [adminToken] } }))
    await admin.signIn(adminToken)
    const catalogue = (await admin.call('GET', '/models')).data as {
      groups: { id: string; models: { name: string; upstreamModel: string }[] }[]
    }
    expect(
      catalogue.groups.map((group) => [group.id, group.models.map((model) => model.name)]),
    ).toEqual([
      ['azure', ['azure-mini']],
      ['vertex-claude', ['vertex-sonnet']],
      ['vertex-gemini', ['gemini-2.5-flash']],
    ])
    const notes = new Map(
      guideSnippets({ baseUrl: served.url, apiKey, model: 'azure-mini' }).map((snippet) => [
        snippet.id,
        snippet.note ?? '',
      ]),
    )
    expect(notes.get('openai-ts')).toContain('not AzureOpenAI')
    expect(notes.get('claude-code')).toContain('CLAUDE_CODE_USE_VERTEX unset')
    expect(notes.get('gemini-cli')).toContain('GOOGLE_GENAI_USE_VERTEXAI unset')
  })

  for (const model of ['azure-mini', 'vertex-sonnet', 'gemini-2.5-flash']) {
    it(`its curl snippets for ${model}, run by bash as shown, answer`, async () => {
      const snippets = new Map(
        guideSnippets({ baseUrl: served.url, apiKey, model }).map((snippet) => [
          snippet.id,
          snippet.code,
        ]),
      )
      const bash = async (id: string) =>
        JSON.parse((await run('bash', ['-c', snippets.get(id)!], { timeout: 30_000 })).stdout)
      const chat = await bash('curl-chat')
      expect(chat.model).toBe(model)
      expect(chat.choices[0].message.content.length).toBeGreaterThan(0)
      const message = await bash('curl-messages')
      expect([message.type, message.model]).toEqual(['message', model])
      expect(message.content[0].text.length).toBeGreaterThan(0)
    })
  }
})
