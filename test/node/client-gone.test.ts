import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createGateway,
  createMemoryKeyStore,
  createMemoryUsageMeter,
  type KeyRecord,
  type RequestEvent,
  type UpstreamProvider,
} from '../../src/index'
import { hashKey } from '../../src/auth/hash-key'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'

const served: ServedGateway[] = []
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()))
})

/**
 * Sends one chat request from a child process over a raw socket, and leaves (destroys the socket)
 * once the gateway has the request in hand: when `received` exists, which the gateway's key
 * lookup writes. Resolves when the child has exited.
 */
async function requestAndLeave(port: string, received: string): Promise<void> {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
  const request = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${keys.main}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`
  // The client runs in its own process, so it can leave while this one is busy.
  const client = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs')
      const s = require('node:net').connect(${port}, '127.0.0.1', () => {
        s.write(${JSON.stringify(request)})
        const leave = () => { s.destroy(); process.exit(0) }
        setInterval(() => { if (fs.existsSync(${JSON.stringify(received)})) leave() }, 5)
        setTimeout(leave, 10_000)
      })`,
    ],
    { stdio: 'ignore' },
  )
  await new Promise((resolve) => client.once('exit', resolve))
}

/** A gateway over a counting upstream whose key lookup is `lookup`, served on a free port. */
async function gatewayWith(
  lookup: (secret: string) => KeyRecord | undefined | Promise<KeyRecord | undefined>,
) {
  const upstream = { calls: 0 }
  const provider: UpstreamProvider = {
    id: 'counting',
    protocol: 'openai',
    // Ignores its signal, as a careless custom provider might: only the gateway's check helps.
    async send() {
      upstream.calls += 1
      return Response.json({ choices: [] })
    },
  }
  const meter = createMemoryUsageMeter()
  const events: RequestEvent[] = []
  const gateway = createGateway({
    groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
    keyStore: { lookup },
    usageMeter: meter,
    onEvent: (event) => events.push(event),
  })
  const server = await serveGateway(gateway, { port: 0 })
  served.push(server)
  return { upstream, meter, events, port: new URL(server.url).port }
}

describe('a client that leaves while the gateway is busy', () => {
  it('is not forwarded upstream, though its departure was not yet read when the gateway got to it', async () => {
    const store = createMemoryKeyStore([
      { hash: await hashKey(keys.main), record: { id: 'main', name: 'main' } },
    ])
    // The gateway writes this file when it has the request in hand; the client leaves only then.
    // (Leaving after a fixed 50 ms raced a loaded machine: a gateway that had not read the
    // request by then never saw one.)
    const received = join(mkdtempSync(join(tmpdir(), 'client-gone-')), 'received')
    const gateway = await gatewayWith((secret) => {
      writeFileSync(received, '')
      // A lookup that keeps the event loop busy for 1.5 s, as a burst of requests does: the
      // client's socket closes meanwhile, but nothing reads that until the loop turns.
      const until = Date.now() + 1_500
      while (Date.now() < until);
      return store.lookup(secret) as KeyRecord | undefined
    })
    await requestAndLeave(gateway.port, received)
    await vi.waitFor(() => expect(gateway.events).toHaveLength(1), { timeout: 5_000 })
    expect(gateway.events[0]).toMatchObject({ outcome: 'aborted', status: 499 })
    expect(gateway.upstream.calls).toBe(0)
    // Whether the body had been read before the departure was seen decides whether the request
    // was metered (reserved, then settled as aborted) or ended before the meter: never anything
    // else, and never a record that cost tokens.
    expect(gateway.meter.records().every((record) => record.outcome === 'aborted')).toBe(true)
    expect(gateway.meter.records().length).toBeLessThanOrEqual(1)
  }, 15_000)

  it('ends, unmetered, when the client left before the gateway read its body', async () => {
    const store = createMemoryKeyStore([
      { hash: await hashKey(keys.main), record: { id: 'main', name: 'main' } },
    ])
    const received = join(mkdtempSync(join(tmpdir(), 'client-gone-')), 'received')
    let lookedUp!: () => void
    const lookupDone = new Promise<void>((resolve) => (lookedUp = resolve))
    // An asynchronous lookup slow enough for the departure to be read before the body is: the
    // request is destroyed by the time the gateway asks for its body (which then never emits
    // 'end' or 'close' again; waiting for them hung the request for good).
    const gateway = await gatewayWith(async (secret) => {
      writeFileSync(received, '')
      await new Promise((resolve) => setTimeout(resolve, 300))
      lookedUp()
      return store.lookup(secret)
    })
    await requestAndLeave(gateway.port, received)
    await lookupDone
    await vi.waitFor(() => expect(gateway.events).toHaveLength(1), { timeout: 5_000 })
    expect(gateway.events[0]).toMatchObject({ outcome: 'aborted', status: 499 })
    expect(gateway.upstream.calls).toBe(0)
    expect(gateway.meter.records()).toEqual([])
  }, 15_000)
})
