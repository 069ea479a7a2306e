import { once } from 'node:events'
import { createServer, connect, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { StoreTimeoutError, withTimeout } from '../../src/redis/with-timeout'

/** Blocks the event loop, as a burst of CPU work on the gateway would. */
function blockLoop(ms: number): void {
  const until = Date.now() + ms
  while (Date.now() < until) {
    // busy on purpose
  }
}

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

/** A loopback echo: the reply is real socket I/O, read in the loop's poll phase. */
async function echoRoundTrip(): Promise<{ send: () => Promise<string> }> {
  const server = createServer((socket) => socket.on('data', (data) => socket.write(data)))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1')
  await once(socket, 'connect')
  closers.push(() => {
    socket.destroy()
    server.close()
  })
  return {
    send: () =>
      new Promise<string>((resolve) => {
        socket.once('data', (data) => resolve(data.toString()))
        socket.write('PONG')
      }),
  }
}

describe('withTimeout: the bound is on the store, not on our event loop', () => {
  it('resolves with the answer that comes in time', async () => {
    const echo = await echoRoundTrip()
    await expect(withTimeout(echo.send(), 200)).resolves.toBe('PONG')
  })

  it('rejects with StoreTimeoutError when the store never answers', async () => {
    const startedAt = Date.now()
    const silent = new Promise<string>(() => {})
    await expect(withTimeout(silent, 50)).rejects.toBeInstanceOf(StoreTimeoutError)
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(49)
  })

  it('a reply that arrived while the loop was blocked past the bound wins over the timer', async () => {
    const echo = await echoRoundTrip()
    const answer = withTimeout(echo.send(), 50)
    // The echo answers within a millisecond, but the loop cannot read it until this returns; by
    // then the 50 ms timer is due too, and timers run before the poll phase reads the socket.
    blockLoop(150)
    await expect(answer).resolves.toBe('PONG')
  })

  it('a store that stays silent through a stalled loop still times out, after one more window', async () => {
    const startedAt = Date.now()
    const silent = withTimeout(new Promise<string>(() => {}), 50)
    blockLoop(150)
    await expect(silent).rejects.toBeInstanceOf(StoreTimeoutError)
    // The stalled window does not count: the store gets 50 ms after the loop came back, less
    // at most one 10 ms tick of the lag ticker (which cannot tell a tick's own wait from lag).
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(189)
  })

  it('a late failure after the timeout does not surface as an unhandled rejection', async () => {
    let fail: (error: Error) => void = () => {}
    const late = new Promise<string>((_, reject) => (fail = reject))
    await expect(withTimeout(late, 20)).rejects.toBeInstanceOf(StoreTimeoutError)
    fail(new Error('late'))
    await new Promise((resolve) => setTimeout(resolve, 10))
  })
})
