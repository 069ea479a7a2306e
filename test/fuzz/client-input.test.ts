import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { hostileBody, prototypeNames } from './mutations'
import { inboundRoutes, type InboundRoute } from './routes'
import { createVendorFakes, fakeBaseUrls, type VendorProtocol } from './vendor-fakes'

/**
 * Property-based tests of every inbound route × group protocol, JSON and stream: generated and
 * mutated bodies must never get a 5xx, every error must be in the route's protocol shape, every
 * answered stream must end as its protocol ends, and no upstream may receive a model other than
 * the one the call name routes to (nor a body whose keys a parser could read two ways).
 *
 * CI runs `FUZZ_RUNS` bodies per cell (default 80, seeded, 40 cells); set `FUZZ_RUNS` (and
 * `FUZZ_SEED`) for a longer run. A summary line per cell is printed with `FUZZ_REPORT=1`.
 */
const runs = Number(process.env['FUZZ_RUNS'] ?? 80)
const seed = Number(process.env['FUZZ_SEED'] ?? 20261123)
const key = 'sk-fuzz-0123456789abcdef0123456789'
/** Group kinds: the three families, and an OpenAI group whose upstream serves /v1/responses. */
const groupProtocols: VendorProtocol[] = ['openai', 'anthropic', 'gemini', 'responses']

/** Per group: an alias whose upstream name differs, and a name served as is. */
const upstreamModelOf = new Map<string, { protocol: VendorProtocol; upstreamModel: string }>(
  groupProtocols.flatMap((protocol) => [
    [`alias-${protocol}`, { protocol, upstreamModel: `up-${protocol}-model` }],
    [`same-${protocol}`, { protocol, upstreamModel: `same-${protocol}` }],
    [`g-${protocol}/alias-${protocol}`, { protocol, upstreamModel: `up-${protocol}-model` }],
  ]),
)

/** Model strings mutations put in bodies and paths: call names, pins, upstream names, nonsense. */
const modelPool = [
  ...upstreamModelOf.keys(),
  ...groupProtocols.map((protocol) => `up-${protocol}-model`),
  'g-openai/alias-gemini',
  'nope',
  '',
  ...prototypeNames,
]

const fakes = createVendorFakes()
const meter = createMemoryUsageMeter()
const gateway = createGateway({
  groupIdRouting: true,
  groups: groupProtocols.map((protocol) => ({
    id: `g-${protocol}`,
    protocol: protocol === 'responses' ? 'openai' : protocol,
    models: [
      { name: `alias-${protocol}`, upstreamModel: `up-${protocol}-model` },
      `same-${protocol}`,
    ],
    upstreams: [
      {
        baseUrl: fakeBaseUrls[protocol],
        apiKey: `upstream-key-${protocol}-000000`,
        ...(protocol === 'responses' ? { responses: true } : {}),
      },
    ],
  })),
  keys: [{ key, quota: { tokens: 1_000_000_000_000 } }],
  usageMeter: meter,
  fetch: fakes.fetch,
})

const openAIErrorShape = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
})

const errorShapes: Record<VendorProtocol, z.ZodType> = {
  openai: openAIErrorShape,
  responses: openAIErrorShape,
  anthropic: z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string(), message: z.string() }),
  }),
  gemini: z.object({
    error: z.object({ code: z.number().int(), message: z.string(), status: z.string() }),
  }),
}

/** How each protocol's stream must end when the upstream's did. */
const streamEnds: Record<VendorProtocol, (text: string) => boolean> = {
  openai: (text) => text.endsWith('data: [DONE]\n\n') && !text.includes('event: error'),
  anthropic: (text) => text.includes('event: message_stop') && !text.includes('event: error'),
  gemini: (text) => text.includes('"finishReason"') && !/(^|\n)\{"error"/.test(text),
  responses: (text) =>
    text.includes('event: response.completed') &&
    !text.includes('event: error') &&
    !text.includes('event: response.failed'),
}

type Tally = { bodies: number; status: Map<number, number> }
const tallies = new Map<string, Tally>()
afterAll(() => {
  if (process.env['FUZZ_REPORT'] === undefined) return
  let total = 0
  for (const [cell, tally] of tallies) {
    total += tally.bodies
    const statuses = [...tally.status].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`)
    console.log(`[fuzz] ${cell}: ${tally.bodies} bodies, ${statuses.join(' ')}`)
  }
  console.log(`[fuzz] total ${total} bodies`)
})

/** The model a call name routes to, as the gateway must route it. */
function expectedUpstream(route: InboundRoute, pathModel: string, text: string) {
  if (route.modelIn === 'path') return upstreamModelOf.get(pathModel)
  try {
    // The gateway decodes bodies as WHATWG TextDecoder does, dropping a leading byte-order mark.
    const body: unknown = JSON.parse(text.replace(/^\ufeff/, ''))
    const model =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)['model']
        : undefined
    return typeof model === 'string' ? upstreamModelOf.get(model) : undefined
  } catch {
    return undefined
  }
}

async function check(route: InboundRoute, cell: string, pathModel: string, text: string) {
  const tally = tallies.get(cell) ?? { bodies: 0, status: new Map() }
  tallies.set(cell, tally)
  const before = fakes.calls.length
  const response = await gateway(
    new Request(`http://gateway.fuzz${route.path(pathModel)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...route.headers,
      },
      body: text,
    }),
  )
  const answer = await response.text()
  tally.bodies += 1
  tally.status.set(response.status, (tally.status.get(response.status) ?? 0) + 1)
  const context = `${response.status} ${answer.slice(0, 300)}`
  expect(response.status, context).toBeLessThan(500)
  if (response.status >= 400) {
    const parsed: unknown = JSON.parse(answer)
    expect(errorShapes[route.errors].safeParse(parsed).success, context).toBe(true)
  } else if (response.headers.get('content-type')?.includes('text/event-stream') === true) {
    expect(streamEnds[route.errors](answer), context).toBe(true)
  } else {
    expect(() => JSON.parse(answer), context).not.toThrow()
  }
  const expected = expectedUpstream(route, pathModel, text)
  for (const call of fakes.calls.slice(before)) {
    expect(call.problems, context).toEqual([])
    expect({ protocol: call.protocol, model: call.model }, context).toEqual({
      protocol: expected?.protocol,
      model: expected?.upstreamModel,
    })
    // Every OpenAI upstream stream, passthrough or translated, must be metered.
    if (call.protocol === 'openai' && call.stream === true)
      expect(call.includeUsage, context).toBe(true)
  }
}

/**
 * The status of a route's unmutated body on a group: counting routes answer 404 on groups that
 * cannot count (spec §4 rule 1); embedding routes 400 on an Anthropic group, which has none.
 */
function servedStatus(route: InboundRoute, protocol: VendorProtocol): number {
  if (route.name === 'count_tokens') return protocol === 'anthropic' ? 200 : 404
  if (route.name === 'gemini countTokens')
    return protocol === 'openai' || protocol === 'responses' ? 404 : 200
  if (route.name.includes('mbed')) return protocol === 'anthropic' ? 400 : 200
  return 200
}

describe.each(inboundRoutes)('$name', (route) => {
  it.each(groupProtocols)('to a %s group: the unmutated body is served', async (protocol) => {
    const callName = `alias-${protocol}`
    const before = fakes.calls.length
    const response = await gateway(
      new Request(`http://gateway.fuzz${route.path(callName)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, ...route.headers },
        body: JSON.stringify(route.body(callName)),
      }),
    )
    const answer = await response.text()
    expect(response.status, answer).toBe(servedStatus(route, protocol))
    expect(fakes.calls.length - before).toBe(servedStatus(route, protocol) === 200 ? 1 : 0)
    await check(
      route,
      `${route.name} → ${protocol}`,
      callName,
      JSON.stringify(route.body(callName)),
    )
  })

  it.each(groupProtocols)(
    'to a %s group: no 5xx, errors in the route shape, only the routed model upstream',
    async (protocol) => {
      const cell = `${route.name} → ${protocol}`
      const callName = `alias-${protocol}`
      const pathModel = fc.oneof(
        { weight: 8, arbitrary: fc.constant(callName) },
        { weight: 2, arbitrary: fc.constantFrom(...modelPool) },
      )
      const bodyModel = route.modelIn === 'body' ? callName : 'ignored'
      await fc.assert(
        fc.asyncProperty(
          pathModel,
          hostileBody(() => route.body(bodyModel), modelPool),
          (model, text) => check(route, cell, route.modelIn === 'path' ? model : callName, text),
        ),
        { numRuns: runs, seed: seed + cell.length * 7919 + protocol.length, endOnFailure: true },
      )
    },
    Math.max(60_000, runs * 200),
  )
})
