import { Agent, request as httpRequest } from 'node:http'
import { requestFor, type Subject } from './cases'

/** Time to the first byte of an SSE answer, per target: the median and p90 over `samples`. */
export type FirstByte = { name: string; kind: Subject['kind']; p50: number; p90: number }

/**
 * Measures how long each target takes from the end of a stream request to the first byte of its
 * answer's body, one request at a time over a kept-alive connection. Requests alternate between
 * the targets, so a slow spell of a shared machine hits them alike.
 */
export async function measureFirstByte(
  subjects: readonly Subject[],
  samples: number,
): Promise<FirstByte[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times = subjects.map(() => [] as number[])
  // Unmeasured requests first: connections open, code paths optimised.
  for (let round = -100; round < samples; round += 1) {
    for (const [index, subject] of subjects.entries()) {
      const ms = await firstByteOnce(subject, agent)
      if (round >= 0) times[index]!.push(ms)
    }
  }
  agent.destroy()
  return subjects.map((subject, index) => {
    const sorted = times[index]!.sort((left, right) => left - right)
    return {
      name: subject.name,
      kind: subject.kind,
      p50: sorted[Math.floor(sorted.length * 0.5)]!,
      p90: sorted[Math.floor(sorted.length * 0.9)]!,
    }
  })
}

function firstByteOnce(subject: Subject, agent: Agent): Promise<number> {
  const { path, body, headers } = requestFor(subject.kind, 'sse')
  const url = new URL(path, subject.target.url)
  return new Promise((resolve, reject) => {
    let sentAt = 0
    let firstAt = 0
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (incoming) => {
        incoming.on('data', () => {
          if (firstAt === 0) firstAt = performance.now()
        })
        incoming.on('end', () => resolve(firstAt - sentAt))
        incoming.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body, () => (sentAt = performance.now()))
  })
}
