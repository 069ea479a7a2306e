import { McpRpcError } from './json-rpc'

/**
 * How the gateway talks to one upstream server when it is not plain Streamable HTTP: the older
 * HTTP+SSE transport (`upstream-sse.ts`) or a stdio process the Node entry starts
 * (`src/node/mcp/stdio-server.ts`). `post` has the contract of `postUpstream`: it throws
 * `UpstreamSessionGone` for a session this instance no longer holds, so that the session is
 * reopened here.
 */
export type UpstreamTransport = {
  post(
    message: Record<string, unknown>,
    context: { sessionId?: string | undefined; signal: AbortSignal },
  ): Promise<{ sessionId: string | undefined; messages: AsyncIterable<Record<string, unknown>> }>
  /** Ends one upstream session (the client's `DELETE`). */
  end?(sessionId: string): Promise<void>
}

/** Builds the transports of servers a runtime starts itself (stdio on Node), and stops them. */
export type McpTransportFactory = {
  /** The transport of a `command` server; undefined when this factory does not serve it. */
  create(
    server: { id: string; command?: string | undefined },
    maxResponseBytes: number,
  ): UpstreamTransport | undefined
  /** Stops what it started (kills the processes); the gateway's owner calls it on close. */
  close(): Promise<void>
}

type Waiter = {
  push(message: Record<string, unknown>): void
  fail(error: unknown): void
}

/**
 * One message stream shared by many requests (an SSE stream, a process's stdout): each request
 * gets an id of the channel's own, so two clients' ids never collide, and its answer comes back
 * with the caller's id. Messages of the server that are not responses (progress, logging,
 * sampling) go to the request that carries their progress token, else to the oldest one waiting.
 */
export function createUpstreamChannel(send: (message: Record<string, unknown>) => Promise<void>) {
  const waiters = new Map<string, Waiter & { token: unknown }>()
  let next = 1
  let failure: unknown

  return {
    /** Sends a request and yields the server's messages until its response. */
    request(message: Record<string, unknown>, signal: AbortSignal) {
      const own = `gw${next++}`
      const id = message['id']
      const queue: Record<string, unknown>[] = []
      let error: unknown
      let done = false
      let wake: (() => void) | undefined
      const params = message['params'] as { _meta?: { progressToken?: unknown } } | undefined
      const waiter = {
        token: params?._meta?.progressToken,
        push(reply: Record<string, unknown>) {
          queue.push(reply)
          wake?.()
        },
        fail(reason: unknown) {
          error ??= reason
          wake?.()
        },
      }
      if (failure !== undefined) throw failure
      waiters.set(own, waiter)
      const abort = () => waiter.fail(signal.reason)
      signal.addEventListener('abort', abort, { once: true })
      const sent = send({ ...message, id: own }).catch((reason: unknown) => waiter.fail(reason))
      async function* messages(): AsyncIterable<Record<string, unknown>> {
        try {
          while (!done) {
            const reply = queue.shift()
            if (reply !== undefined) {
              if ('id' in reply && reply['method'] === undefined && reply['id'] === own) {
                done = true
                yield { ...reply, id }
              } else yield reply
              continue
            }
            if (error !== undefined) throw error
            await new Promise<void>((resolve) => (wake = resolve))
            wake = undefined
          }
        } finally {
          waiters.delete(own)
          signal.removeEventListener('abort', abort)
        }
      }
      return { sent, messages: messages() }
    },
    /** Sends a notification, or the client's answer to a server's request, as it is. */
    notify: (message: Record<string, unknown>) => send(message),
    /** Hands a message the server sent to the request it belongs to. */
    deliver(message: Record<string, unknown>) {
      if (message['method'] === undefined && typeof message['id'] === 'string') {
        waiters.get(message['id'])?.push(message)
        return
      }
      const token = (message['params'] as { progressToken?: unknown } | undefined)?.progressToken
      let target: Waiter | undefined
      for (const waiter of waiters.values()) {
        if (token !== undefined && waiter.token === token) {
          target = waiter
          break
        }
        target ??= waiter
      }
      target?.push(message)
    },
    /** Fails every request waiting, and every later one (the stream or process is gone). */
    fail(error: McpRpcError) {
      failure ??= error
      for (const waiter of waiters.values()) waiter.fail(error)
      waiters.clear()
    },
    get failed() {
      return failure !== undefined
    },
  }
}

/** A channel of `createUpstreamChannel`. */
export type UpstreamChannel = ReturnType<typeof createUpstreamChannel>
