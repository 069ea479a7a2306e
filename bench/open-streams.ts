import { Agent, request as httpRequest, type ClientRequest } from 'node:http'
import { requestFor, type Subject } from './cases'
import { holdMarker } from './mock-upstream'

/** What a target holds per open stream. */
export type OpenStreams = {
  name: string
  kind: Subject['kind']
  streams: number
  bytesPerStream: number
}

/** Streams opened at once: more would overflow the listen backlog of a loaded machine. */
const openingBatch = 100

/**
 * Opens `count` SSE streams through a target, each held open by the upstream after its first
 * frame, and prices each in the target's resident memory: (RSS with every stream open and its
 * first frame received − RSS before) / count, both after a full garbage collection.
 */
export async function measureOpenStreams(subject: Subject, count: number): Promise<OpenStreams> {
  const request = requestFor(subject.kind, 'sse')
  const parsed = JSON.parse(request.body) as Record<string, unknown>
  // An OpenAI field both the relay and the gateway pass through to the upstream as it is.
  const body = JSON.stringify({ ...parsed, user: holdMarker })
  const url = new URL(request.path, subject.target.url)
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const before = await subject.target.liveRss()
  const open: ClientRequest[] = []
  try {
    for (let start = 0; start < count; start += openingBatch) {
      const batch = Array.from({ length: Math.min(openingBatch, count - start) }, () =>
        openOne(url, body, request.headers, agent, open),
      )
      await Promise.all(batch)
    }
    const after = await subject.target.liveRss()
    return {
      name: subject.name,
      kind: subject.kind,
      streams: count,
      bytesPerStream: (after - before) / count,
    }
  } finally {
    for (const outgoing of open) outgoing.destroy()
    agent.destroy()
    // Let the target see every close before the next measurement.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
}

/** Opens one stream and resolves once its first bytes arrived. */
function openOne(
  url: URL,
  body: string,
  headers: Record<string, string>,
  agent: Agent,
  open: ClientRequest[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (incoming) => {
        if (incoming.statusCode !== 200) {
          reject(new Error(`${url.href} answered ${incoming.statusCode} to a held stream`))
          return
        }
        incoming.once('data', () => resolve())
        incoming.on('error', () => undefined)
      },
    )
    outgoing.on('error', (error) => reject(error))
    outgoing.setTimeout(60_000, () => reject(new Error('a held stream did not start in 60 s')))
    open.push(outgoing)
    outgoing.end(body)
  })
}
