import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { guideSnippets } from '../../src/console/guide/snippets'
import { createNodeFetch, serveGateway, type ServedGateway } from '../../src/node/index'
import { startBedrockFake } from '../helpers/bedrock/bedrock-fake'

/**
 * The call guide against groups on AWS Bedrock: its curl snippets, filled in as the console fills
 * them and run by bash as shown, reach a Claude-on-Bedrock group (InvokeModel) and a `converse`
 * group (Converse) through the Bedrock fake, every call signed and checked by its verifier. The
 * snippets hold a gateway key only: the gateway signs for AWS.
 */
const run = promisify(execFile)
const apiKey = 'sk-guide-bedrock-key-0123456789'
const credentials = {
  accessKeyId: 'AKIAQNZGKEXAMPLE0005',
  secretAccessKey: 'Z3VpZGUtYmVkcm9jay1zZWNyZXQtYWNjZXNzLWtleQ',
}
let fake: Awaited<ReturnType<typeof startBedrockFake>>
let served: ServedGateway

beforeAll(async () => {
  fake = await startBedrockFake({ region: 'eu-west-1', credentials })
  const upstream = { provider: 'bedrock', region: 'eu-west-1', baseUrl: fake.url, ...credentials }
  served = await serveGateway(
    createGateway({
      groups: [
        {
          id: 'claude',
          protocol: 'anthropic',
          models: [
            { name: 'claude-haiku', upstreamModel: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' },
          ],
          upstreams: [upstream],
        },
        {
          id: 'nova',
          protocol: 'converse',
          models: [{ name: 'nova-lite', upstreamModel: 'eu.amazon.nova-lite-v1:0' }],
          upstreams: [upstream],
        },
      ],
      keys: [{ key: apiKey, name: 'guide' }],
      fetch: createNodeFetch(),
    }),
    { port: 0, host: '127.0.0.1' },
  )
})
afterAll(async () => {
  await served?.close()
  await fake?.close()
})

const snippet = (model: string, id: string) =>
  guideSnippets({ baseUrl: served.url, apiKey, model }).find((item) => item.id === id)!.code
const bash = async (script: string) =>
  JSON.parse((await run('bash', ['-c', script], { timeout: 30_000 })).stdout)

describe('the call guide on Bedrock groups', () => {
  it.each([
    ['claude-haiku', 'Answer from claude-haiku-4-5-20251001.', 'invoke'],
    ['nova-lite', 'Answer from nova-lite.', 'converse'],
  ])('its curl snippets reach %s, signed', async (model, text, operation) => {
    expect(snippet(model, 'curl-chat')).not.toContain(credentials.accessKeyId)
    const chat = await bash(snippet(model, 'curl-chat'))
    expect([chat.model, chat.choices[0].message.content]).toEqual([model, text])
    expect(fake.calls.at(-1)!.operation).toBe(operation)
    const message = await bash(snippet(model, 'curl-messages'))
    expect([message.type, message.model, message.content[0].text]).toEqual(['message', model, text])
    expect(fake.calls.at(-1)!.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAQNZGKEXAMPLE0005\//,
    )
  })

  it('tells Claude Code users to leave CLAUDE_CODE_USE_BEDROCK unset', () => {
    const claudeCode = guideSnippets({ baseUrl: served.url, apiKey, model: 'claude-haiku' }).find(
      (item) => item.id === 'claude-code',
    )!
    expect(claudeCode.code).not.toContain('CLAUDE_CODE_USE_BEDROCK')
    expect(claudeCode.note).toMatch(/AWS Bedrock.*leave CLAUDE_CODE_USE_BEDROCK/)
  })
})
