import { createParser } from 'eventsource-parser'
import { isJsonObject, parseJson, stringOf } from '../internal/json'
import { McpRpcError, rpcCodes } from './json-rpc'
import {
  createUpstreamChannel,
  type UpstreamChannel,
  type UpstreamTransport,
} from './upstream-channel'
import { failed, UpstreamSessionGone, type UpstreamEndpoint } from './upstream-http'

type Connection = { channel: UpstreamChannel; postUrl: string; stop: AbortController }

/**
 * The older HTTP+SSE transport (MCP 2024-11-05) to one server: each upstream session is a `GET`
 * of the server's SSE endpoint, whose first `endpoint` event names the URL to `POST` messages to;
 * answers come back on the stream. A stream is a connection of this instance, so the session id
 * the gateway records is this instance's own: another instance (or this one after the stream
 * dropped) does not hold it, throws `UpstreamSessionGone`, and the session is reopened there.
 */
export function createSseTransport(endpoint: UpstreamEndpoint): UpstreamTransport {
  const connections = new Map<string, Connection>()

  async function connect(signal: AbortSignal): Promise<[string, Connection]> {
    const stop = new AbortController()
    const abort = () => stop.abort(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    const auth = await endpoint.auth.headers()
    let response: Response
    try {
      response = await endpoint.fetch(endpoint.url, {
        headers: { ...auth, accept: 'text/event-stream' },
        signal: stop.signal,
      })
    } catch (error) {
      if (signal.aborted) throw signal.reason
      throw failed(endpoint, `it could not be reached (${stringOf(error)})`)
    } finally {
      signal.removeEventListener('abort', abort)
    }
    if (!response.ok || response.body === null) {
      if (response.status === 401) endpoint.auth.refused(auth)
      await response.body?.cancel().catch(() => undefined)
      throw failed(endpoint, `its SSE endpoint answered HTTP ${response.status}`)
    }
    const id = crypto.randomUUID()
    let resolveUrl: (url: string) => void = () => undefined
    let rejectUrl: (error: unknown) => void = () => undefined
    const postUrl = new Promise<string>((resolve, reject) => {
      resolveUrl = resolve
      rejectUrl = reject
    })
    const channel = createUpstreamChannel(async (message) => {
      const url = await postUrl
      const posted = await endpoint.fetch(url, {
        method: 'POST',
        headers: { ...(await endpoint.auth.headers()), 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: stop.signal,
      })
      await posted.body?.cancel().catch(() => undefined)
      if (!posted.ok) throw failed(endpoint, `it answered HTTP ${posted.status} to a message`)
    })
    let sinceEvent = 0
    const parser = createParser({
      onEvent(event) {
        sinceEvent = 0
        if (event.event === 'endpoint') {
          // Relative to the SSE endpoint; the spec's servers send a path with a session query.
          resolveUrl(new URL(event.data.trim(), endpoint.url).href)
          return
        }
        if (event.event !== undefined && event.event !== 'message') return
        const parsed = parseJson(event.data)
        if (parsed.ok && isJsonObject(parsed.value)) channel.deliver(parsed.value)
      },
    })
    const connection = { channel, postUrl: '', stop }
    void (async () => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
      let why = 'its SSE stream ended'
      try {
        for (;;) {
          const chunk = await reader.read()
          if (chunk.done) break
          sinceEvent += chunk.value.length
          // A stream is long-lived: what is bounded is one event, not the stream.
          if (sinceEvent > endpoint.maxResponseBytes) {
            channel.fail(
              new McpRpcError(
                rpcCodes.tooLarge,
                `The answer of MCP server "${endpoint.id}" exceeds ${endpoint.maxResponseBytes} bytes (mcp.maxResponseBytes).`,
              ),
            )
            break
          }
          parser.feed(chunk.value)
        }
      } catch (error) {
        why = `its SSE stream was cut (${error instanceof Error ? error.message : stringOf(error)})`
      }
      connections.delete(id)
      const error = failed(endpoint, why)
      channel.fail(error)
      rejectUrl(error)
      stop.abort()
      await reader.cancel().catch(() => undefined)
    })()
    connection.postUrl = await postUrl
    connections.set(id, connection)
    return [id, connection]
  }

  return {
    async post(message, context) {
      let sessionId = context.sessionId
      let connection = sessionId === undefined ? undefined : connections.get(sessionId)
      if (message['method'] === 'initialize') {
        ;[sessionId, connection] = await connect(context.signal)
      } else if (connection === undefined || connection.channel.failed) {
        throw new UpstreamSessionGone(endpoint.id)
      }
      if (message['method'] === undefined || message['id'] === undefined) {
        // A notification, or the client's answer to a server's request: nothing comes back.
        await connection.channel.notify(message)
        return { sessionId, messages: empty() }
      }
      const request = connection.channel.request(message, context.signal)
      return { sessionId, messages: request.messages }
    },
    async end(sessionId) {
      connections.get(sessionId)?.stop.abort()
      connections.delete(sessionId)
    },
  }
}

async function* empty(): AsyncIterable<Record<string, unknown>> {}
