import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { createNodeFetch, serveGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'
import { startSocketUpstream } from '../helpers/socket-upstream'

const keysUpstream = {
  openai: 'sk-proj-Rd1rEcT0pEnAiKeY9x8w7v6u5t4',
  anthropic: 'sk-ant-api03-Rd1rEcTaNtHrOpIc9x8w7v6',
  gemini: 'AIzaSyRd1rEcTgEmInI9x8w7v6u5t4s3r2',
}

let attacker: Awaited<ReturnType<typeof startSocketUpstream>>
let redirecting: Awaited<ReturnType<typeof startSocketUpstream>>

beforeAll(async () => {
  // Another origin (another port) that would collect whatever followed the redirect.
  attacker = await startSocketUpstream(() => ({
    headers: { 'content-type': 'application/json' },
    chunks: ['{"collected":true}'],
  }))
  redirecting = await startSocketUpstream((call) => ({
    status: 307,
    headers: { location: `${attacker.url}/steal${call.url}` },
    chunks: [],
  }))
})
afterAll(async () => {
  await redirecting.close()
  await attacker.close()
})

describe.each([
  ['createNodeFetch', () => createNodeFetch()],
  ['the global fetch', () => undefined],
])('an upstream that redirects to another origin, with %s, over real sockets', (_, fetch) => {
  let served: Awaited<ReturnType<typeof serveGateway>>
  const meter = createMemoryUsageMeter()
  beforeAll(async () => {
    const upstreamFetch = fetch()
    served = await serveGateway(
      createGateway({
        groups: [
          {
            id: 'o',
            protocol: 'openai',
            models: ['openai-model'],
            upstreams: [{ baseUrl: `${redirecting.url}/v1`, apiKey: keysUpstream.openai }],
          },
          {
            id: 'a',
            protocol: 'anthropic',
            models: ['anthropic-model'],
            upstreams: [{ baseUrl: redirecting.url, apiKey: keysUpstream.anthropic }],
          },
          {
            id: 'g',
            protocol: 'gemini',
            models: ['gemini-model'],
            upstreams: [{ baseUrl: redirecting.url, apiKey: keysUpstream.gemini }],
          },
        ],
        keys: [{ key: keys.main }],
        usageMeter: meter,
        ...(upstreamFetch === undefined ? {} : { fetch: upstreamFetch }),
      }),
      { port: 0 },
    )
  })
  afterAll(() => served.close())

  it('is not followed: each SDK gets a 502-class error, and neither the key nor the prompt reaches the other origin', async () => {
    const before = attacker.calls.length
    const openai = new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1`, maxRetries: 0 })
    await expect(
      openai.chat.completions.create({
        model: 'openai-model',
        messages: [{ role: 'user', content: 'secret prompt' }],
      }),
    ).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('redirect (HTTP 307)'),
    })
    const anthropic = new Anthropic({ apiKey: keys.main, baseURL: served.url, maxRetries: 0 })
    await expect(
      anthropic.messages.create({
        model: 'anthropic-model',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'secret prompt' }],
      }),
    ).rejects.toMatchObject({ status: 502 })
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } })
    await expect(
      genai.models.generateContent({ model: 'gemini-model', contents: 'secret prompt' }),
    ).rejects.toMatchObject({ status: 503 })
    expect(redirecting.calls.length).toBeGreaterThanOrEqual(3)
    expect(attacker.calls.slice(before)).toEqual([])
    expect(
      meter
        .records()
        .slice(-3)
        .map((record) => [record.outcome, record.status]),
    ).toEqual([
      ['error', 502],
      ['error', 502],
      ['error', 502],
    ])
  })
})
