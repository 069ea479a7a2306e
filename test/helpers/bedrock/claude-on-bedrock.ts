import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { createGateway, type RequestEvent } from '../../../src/index'
import { createNodeFetch, serveGateway } from '../../../src/node/index'
import { keys } from '../gateway'
import { startBedrockFake } from './bedrock-fake'

/** The Bedrock API key the fake accepts. */
export const apiKey = 'ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleS0wMTIzNDU2Nzg5'
/** Temporary credentials the fake knows: its verifier recomputes every signature with them. */
export const credentials = {
  accessKeyId: 'ASIAQNZGKEXAMPLE0001',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjEFakeSessionToken0123456789abcdefghijklmnopqrstuvwxyz',
}
/** The inference profile the Claude groups call. */
export const profileId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
/** An application inference profile's ARN, served as `claude-app-profile`. */
export const applicationProfileArn =
  'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6'

/**
 * Claude on Bedrock for a test file: the Bedrock fake (streams written 37 bytes at a time), and a
 * gateway on a loopback port with the Node transport and these groups: `claude` (SigV4 with
 * session credentials: `claude-sonnet-4-5`, `claude-app-profile`), `pair` and `pair2` (two
 * upstreams each, a Bedrock API key: `claude-pair`, `claude-pair2`) and `refused` (a wrong
 * secret: `claude-refused`). The SDKs are at their defaults; `events` is emptied before each test.
 */
export function useClaudeOnBedrock() {
  let fake: Awaited<ReturnType<typeof startBedrockFake>>
  let served: Awaited<ReturnType<typeof serveGateway>>
  const events: RequestEvent[] = []
  beforeAll(async () => {
    fake = await startBedrockFake({ region: 'us-east-1', apiKey, credentials, writeBytes: 37 })
    const bedrock = (id: string, auth: object = { apiKey }) => ({
      provider: 'bedrock' as const,
      id,
      region: 'us-east-1',
      baseUrl: fake.url,
      ...auth,
    })
    served = await serveGateway(
      createGateway({
        groups: [
          {
            id: 'claude',
            protocol: 'anthropic',
            models: [
              { name: 'claude-sonnet-4-5', upstreamModel: profileId },
              { name: 'claude-app-profile', upstreamModel: applicationProfileArn },
            ],
            upstreams: [bedrock('bedrock-us', credentials)],
          },
          {
            id: 'pair',
            protocol: 'anthropic',
            models: [{ name: 'claude-pair', upstreamModel: profileId }],
            upstreams: [bedrock('bedrock-a'), bedrock('bedrock-b')],
          },
          {
            id: 'pair2',
            protocol: 'anthropic',
            models: [{ name: 'claude-pair2', upstreamModel: profileId }],
            upstreams: [bedrock('bedrock-c'), bedrock('bedrock-d')],
          },
          {
            id: 'refused',
            protocol: 'anthropic',
            models: [{ name: 'claude-refused', upstreamModel: profileId }],
            upstreams: [
              bedrock('bedrock-bad-key', {
                ...credentials,
                secretAccessKey: 'not-the-secret-0123456789',
              }),
            ],
          },
        ],
        keys: [{ key: keys.main }],
        fetch: createNodeFetch(),
        onEvent: (event) => events.push(event),
      }),
      { port: 0 },
    )
  })
  afterAll(async () => {
    await served.close()
    await fake.close()
  })
  beforeEach(() => {
    events.length = 0
  })
  return {
    fake: () => fake,
    events,
    anthropic: () => new Anthropic({ apiKey: keys.main, baseURL: served.url }),
    openai: () => new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1` }),
    genai: () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } }),
    lastCall: () => fake.calls.at(-1)!,
  }
}
