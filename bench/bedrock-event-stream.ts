/**
 * `npx tsx bench/bedrock-event-stream.ts [--mb 32] [--chunk 16384]`: the throughput of the Bedrock
 * event-stream decoder (issue 31's closing figure), alone and with the stream reader that turns
 * each InvokeModel `chunk` into the Anthropic SSE event it carries.
 *
 * The stream is `--mb` megabytes of InvokeModel `chunk` frames, each a `content_block_delta` of a
 * few words (as Claude streams), encoded with zlib's CRC and cut into `--chunk`-byte reads. It
 * prints MB/s of event-stream bytes for the decoder (both CRCs checked, headers read) and for the
 * reader (base64 and JSON of each event, SSE written): megabytes per second of CPU time, best of 5
 * runs, so that a busy machine's other processes do not count.
 */
import { parseArgs } from 'node:util'
import { createEventStreamDecoder } from '../src/upstream/bedrock/event-stream-decoder'
import { readBedrockStream } from '../src/upstream/bedrock/bedrock-stream'
import { chunkFrame } from '../test/helpers/bedrock/event-stream-encoder'

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '32' }, chunk: { type: 'string', default: '16384' } },
})
const totalBytes = Number(values.mb) * 1024 * 1024
const chunkBytes = Number(values.chunk)

const frames: Buffer[] = []
let size = 0
for (let index = 0; size < totalBytes; index++) {
  const frame = chunkFrame({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: ` word${index % 97} and some more` },
  })
  frames.push(frame)
  size += frame.length
}
// A plain Uint8Array, as a socket's chunks arrive through fetch (a Buffer's subarray costs more).
const joined = Buffer.concat(frames)
const stream = new Uint8Array(joined.buffer, joined.byteOffset, joined.length)
const pieces: Uint8Array[] = []
for (let at = 0; at < stream.length; at += chunkBytes)
  pieces.push(stream.subarray(at, at + chunkBytes))
const frameBytes = Math.round(stream.length / frames.length)

function decodeOnly(): number {
  const decoder = createEventStreamDecoder()
  let count = 0
  for (const piece of pieces) decoder.push(piece, () => void count++)
  return count
}

async function readAll(): Promise<number> {
  let next = 0
  const source = readBedrockStream(
    {
      status: 200,
      headers: { get: () => 'application/vnd.amazon.eventstream' },
      body: {
        read: async () =>
          next < pieces.length
            ? { done: false as const, value: pieces[next++]! }
            : { done: true as const },
        cancel: async () => undefined,
      },
    },
    'invoke',
    'anthropic',
  )
  let out = 0
  for (;;) {
    const read = await source.read()
    if (read.done) return out
    out += read.value.byteLength
  }
}

// CPU time, not wall time: on a shared machine the wall clock measures the neighbours too.
const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
const mbps = (ms: number) => stream.length / 1024 / 1024 / (ms / 1000)
let bestDecode = Infinity
let bestRead = Infinity
for (let run = 0; run < 5; run++) {
  let started = cpuMs()
  if (decodeOnly() !== frames.length) throw new Error('the decoder lost frames')
  bestDecode = Math.min(bestDecode, cpuMs() - started)
  started = cpuMs()
  await readAll()
  bestRead = Math.min(bestRead, cpuMs() - started)
}
console.log(
  `${frames.length} frames of ~${frameBytes} bytes, ${(stream.length / 1024 / 1024).toFixed(1)} MB in ${chunkBytes}-byte reads (MB per CPU second, best of 5)`,
)
console.log(`decoder (CRCs, headers):        ${mbps(bestDecode).toFixed(0)} MB/s`)
console.log(`reader (decoder + event → SSE): ${mbps(bestRead).toFixed(0)} MB/s`)
