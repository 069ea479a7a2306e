/**
 * `npx tsx bench/sse-garbage.ts [--reader <module>] [--mb 32] [--line <chars>]`: what a body of
 * garbage served as `text/event-stream` costs the SSE reader (issue 7, item 4).
 *
 * The body is `--mb` megabytes of lines that are not SSE (HTML-like text), in 64 KiB chunks, one
 * chunk per macrotask as from a socket. It prints the reader's CPU time, wall time, the longest
 * event-loop stall (what every other request on the process waits), the bytes it read before
 * giving up, and how it ended. `--reader` points at another copy of `src/sse/sse-reader.ts`, to
 * compare with an older version.
 */
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    reader: { type: 'string', default: 'src/sse/sse-reader.ts' },
    mb: { type: 'string', default: '32' },
    line: { type: 'string', default: '60' },
  },
})
const module = (await import(
  pathToFileURL(resolve(values.reader)).href
)) as typeof import('../src/sse/sse-reader')

const totalBytes = Number(values.mb) * 1024 * 1024
const lineChars = Number(values.line)
const chunkBytes = 64 * 1024
const line = `<div class="cdn-error">${'x'.repeat(Math.max(0, lineChars - 30))}</div>\n`
const chunk = new TextEncoder().encode(line.repeat(Math.ceil(chunkBytes / line.length)))

let sent = 0
const body = new ReadableStream<Uint8Array>({
  async pull(controller) {
    if (sent >= totalBytes) {
      controller.close()
      return
    }
    await new Promise((done) => setImmediate(done))
    sent += chunk.byteLength
    controller.enqueue(chunk)
  },
})

let longestStall = 0
let last = performance.now()
const probe = setInterval(() => {
  const now = performance.now()
  longestStall = Math.max(longestStall, now - last - 1)
  last = now
}, 1)

const reader = module.createSseReader(body, { maxBufferSize: 64 * 1024 * 1024 })
const cpuBefore = process.cpuUsage()
const started = performance.now()
let events = 0
let ending = 'end of body'
try {
  while ((await reader.next()) !== undefined) events += 1
} catch (error) {
  ending = `failed: ${(error as Error).message}`
}
const wall = performance.now() - started
const cpu = process.cpuUsage(cpuBefore)
clearInterval(probe)
await reader.cancel()

console.log(
  JSON.stringify(
    {
      reader: values.reader,
      bodyBytes: totalBytes,
      bytesRead: Math.min(sent, totalBytes),
      events,
      ending,
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      wallMs: Math.round(wall),
      longestStallMs: Math.round(longestStall),
    },
    null,
    2,
  ),
)
