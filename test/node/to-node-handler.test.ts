import express from 'express'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { serveGateway, toNodeHandler } from '../../src/node/index'
import { keys } from '../helpers/gateway'

const servers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function demoGateway(chunkDelayMs = 0) {
  const meter = createMemoryUsageMeter()
  const gateway = createGateway({
    groups: [
      {
        id: 'demo',
        protocol: 'openai',
        models: ['demo-echo'],
        upstreams: [{ provider: 'mock', chunkDelayMs }],
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: meter,
  })
  return { gateway, meter }
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      servers.push({
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      })
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    })
  })
}

describe('toNodeHandler with node:http', () => {
  it('serves the openai SDK, non-stream and stream', async () => {
    const { gateway } = demoGateway()
    const served = await serveGateway(gateway, { port: 0 })
    servers.push(served)
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1`, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'over http' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: over http')
    let text = ''
    for await (const chunk of await client.chat.completions.create({
      model: 'demo-echo',
      stream: true,
      messages: [{ role: 'user', content: 'a stream' }],
    })) {
      text += chunk.choices[0]?.delta.content ?? ''
    }
    expect(text).toBe('You said: a stream')
  })

  it('records a stream the client abandons as aborted, with the upstream cancelled', async () => {
    const { gateway, meter } = demoGateway(50)
    const served = await serveGateway(gateway, { port: 0 })
    servers.push(served)
    const controller = new AbortController()
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1`, maxRetries: 0 })
    const stream = await client.chat.completions.create(
      {
        model: 'demo-echo',
        stream: true,
        messages: [{ role: 'user', content: 'one two three four five six seven eight' }],
      },
      { signal: controller.signal },
    )
    const received: string[] = []
    // The SDK ends the iteration quietly when its own signal aborts it.
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta.content ?? '')
      if (received.length === 3) controller.abort()
    }
    expect(received.join('')).not.toContain('eight')
    await vi.waitFor(() => expect(meter.records()).toHaveLength(1))
    expect(meter.records()[0]).toMatchObject({ outcome: 'aborted', stream: true })
  })

  it('answers HEAD without a body and passes the status through', async () => {
    const { gateway } = demoGateway()
    const served = await serveGateway(gateway, { port: 0 })
    servers.push(served)
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${served.url}/v1/models`,
        { method: 'HEAD', headers: { authorization: `Bearer ${keys.main}` } },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        },
      )
      request.on('error', reject)
      request.end()
    })
    expect(status).toBe(200)
  })
})

describe('toNodeHandler as Express middleware', () => {
  it('works mounted under /v1, building the URL from originalUrl', async () => {
    const { gateway } = demoGateway()
    const app = express()
    app.use('/v1', toNodeHandler(gateway))
    const url = await listen(createServer(app))
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${url}/v1`, maxRetries: 0 })
    const models = await client.models.list()
    expect(models.data.map((model) => model.id)).toEqual(['demo-echo'])
    const completion = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'express' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: express')
  })

  it('uses a body that express.json() already parsed', async () => {
    const { gateway } = demoGateway()
    const app = express()
    app.use(express.json())
    app.use('/v1', toNodeHandler(gateway))
    const url = await listen(createServer(app))
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${url}/v1`, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'parsed first' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: parsed first')
  })
})
