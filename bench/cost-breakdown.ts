import { Readable } from 'node:stream'
import { hashKey } from '../src/auth/hash-key'
import { parseJson } from '../src/internal/json'
import { openAIChatRequestSchema } from '../src/protocols/openai/request-schema'
import { setStringMember } from '../src/internal/set-string-member'
import { benchKey, benchModel, completionJson, jsonRequestBody, streamFrames } from './payloads'

/** One measured step: mean wall-clock and CPU microseconds per operation. */
export type Cost = { step: string; micros: number; cpuMicros: number; operations: number }

const url = 'http://127.0.0.1:8787/v1/chat/completions'
const clientHeaders = {
  host: '127.0.0.1:8787',
  'user-agent': 'OpenAI/JS 6.49.0',
  accept: 'application/json',
  'content-type': 'application/json',
  authorization: `Bearer ${benchKey}`,
  'content-length': String(jsonRequestBody.length),
}

/**
 * Prices single steps of a gateway request, without sockets, one operation at a time: the Web
 * objects every request builds and the checks it runs. (The whole handler is priced better under
 * load, by the bench's `canned` transport: sequential calls of it keep speeding up for seconds as
 * V8 tiers up, so a short in-process figure would mislead.) Wall time includes waits (Web Crypto
 * hashes on the libuv pool); CPU time is the whole process's, so it also counts that pool.
 */
export async function measureCosts(budgetMs = 300): Promise<Cost[]> {
  const steps: Array<[string, () => Promise<unknown> | unknown]> = [
    ['Node bridge: Headers + Request + Readable.toWeb body, text()', () => bridgeRequest()],
    ['new Request(string body) + text()', () => newRequest().text()],
    ['key SHA-256 (crypto.subtle), every request', () => hashKey(benchKey)],
    ['body JSON.parse + zod validation', () => validate(jsonRequestBody)],
    ['AbortController + listener on another signal', () => abortPair()],
    ['new Response(JSON text) + arrayBuffer()', () => new Response(completionJson).arrayBuffer()],
    // Passthrough answers name the call name (ADR 0017): spliced into the upstream's text.
    ['passthrough JSON answer: model set to the call name', () => setModel(completionJson)],
    ['passthrough stream: model set in every chunk of one answer', () => setModelInChunks()],
  ]
  // A first pass warms the code the steps share (undici's Request, Web streams) for all of them.
  for (const [, run] of steps) await measure(run, budgetMs)
  const costs: Cost[] = []
  for (const [step, run] of steps) costs.push({ step, ...(await measure(run, budgetMs)) })
  return costs
}

const chunks = streamFrames.withUsage
  .map((frame) => frame.slice('data: '.length, -2))
  .filter((data) => data !== '[DONE]')

function setModel(text: string): string {
  return setStringMember(text, ['model'], benchModel)
}

function setModelInChunks(): number {
  let length = 0
  for (const chunk of chunks) length += setModel(chunk).length
  return length
}

function newRequest(): Request {
  return new Request(url, { method: 'POST', headers: clientHeaders, body: jsonRequestBody })
}

function validate(text: string): unknown {
  const parsed = parseJson(text)
  if (!parsed.ok) throw parsed.error
  return openAIChatRequestSchema.parse(parsed.value)
}

/** What `toNodeHandler` does to turn a Node request into a `Request`, then the core's read. */
function bridgeRequest(): Promise<string> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(clientHeaders)) headers.set(name, value)
  const source = Readable.from([Buffer.from(jsonRequestBody)])
  const request = new Request(url, {
    method: 'POST',
    headers,
    body: Readable.toWeb(source) as ReadableStream<Uint8Array>,
    duplex: 'half',
  } as RequestInit)
  return request.text()
}

const clientController = new AbortController()

/** An upstream exchange's shape: its own controller, tied to the client's signal, then untied. */
function abortPair(): AbortSignal {
  const controller = new AbortController()
  const onAbort = () => controller.abort()
  clientController.signal.addEventListener('abort', onAbort, { once: true })
  clientController.signal.removeEventListener('abort', onAbort)
  return controller.signal
}

async function measure(
  run: () => Promise<unknown> | unknown,
  budgetMs: number,
): Promise<{ micros: number; cpuMicros: number; operations: number }> {
  const warmUntil = performance.now() + budgetMs / 2
  while (performance.now() < warmUntil) await run()
  let operations = 0
  const cpuBefore = process.cpuUsage()
  const startedAt = performance.now()
  const stopAt = startedAt + budgetMs
  // Batches of 16 keep the clock reads out of the figure.
  while (performance.now() < stopAt) {
    for (let index = 0; index < 16; index += 1) await run()
    operations += 16
  }
  const wallMicros = (performance.now() - startedAt) * 1000
  const cpu = process.cpuUsage(cpuBefore)
  return {
    micros: wallMicros / operations,
    cpuMicros: (cpu.user + cpu.system) / operations,
    operations,
  }
}
