import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createGateway,
  createMemoryKeyStore,
  createMemoryUsageMeter,
  type KeyRecord,
  type UpstreamProvider,
} from '../../src/index'
import { hashKey } from '../../src/auth/hash-key'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'

const served: ServedGateway[] = []
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()))
})

describe('a client that leaves while the gateway is busy', () => {
  it('is not forwarded upstream, though its departure was not yet read when the gateway got to it', async () => {
    let upstreamCalls = 0
    const provider: UpstreamProvider = {
      id: 'counting',
      protocol: 'openai',
      // Ignores its signal, as a careless custom provider might: only the gateway's check helps.
      async send() {
        upstreamCalls += 1
        return Response.json({ choices: [] })
      },
    }
    const store = createMemoryKeyStore([
      { hash: await hashKey(keys.main), record: { id: 'main', name: 'main' } },
    ])
    const meter = createMemoryUsageMeter()
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
      keyStore: {
        // A lookup that keeps the event loop busy for 1.5 s, as a burst of requests does: the
        // client's socket closes meanwhile, but nothing reads that until the loop turns.
        lookup(secret: string) {
          const until = Date.now() + 1_500
          while (Date.now() < until);
          return store.lookup(secret) as KeyRecord | undefined
        },
      },
      usageMeter: meter,
    })
    const server = await serveGateway(gateway, { port: 0 })
    served.push(server)
    const { port } = new URL(server.url)
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
    // The client runs in its own process, so it can leave while this one is busy.
    const client = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').connect(${port}, '127.0.0.1', () => {
          s.write(${JSON.stringify(
            `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${keys.main}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
          )})
          setTimeout(() => { s.destroy(); process.exit(0) }, 50)
        })`,
      ],
      { stdio: 'ignore' },
    )
    await new Promise((resolve) => client.once('exit', resolve))
    await vi.waitFor(() => expect(meter.records()).toHaveLength(1), { timeout: 5_000 })
    expect(meter.records()[0]).toMatchObject({ outcome: 'aborted' })
    expect(upstreamCalls).toBe(0)
  }, 15_000)
})
