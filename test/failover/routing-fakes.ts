import OpenAI from 'openai'
import {
  createGateway,
  createHealthSelector,
  createMemoryUsageMeter,
  type GatewayConfig,
  type GatewayHandler,
  type GroupRegistry,
  type RequestEvent,
  type UpstreamSelector,
} from '../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

/** How a fake upstream answers one call: after a delay, a chat completion or a vendor error. */
export type FakeAnswer = { delayMs?: number; status?: number; retryAfter?: string }

/** A chat completion as OpenAI sends it, with 10 output tokens (the same on every fake). */
export function chatCompletion(model: string) {
  return {
    id: 'chatcmpl-routing',
    object: 'chat.completion',
    created: 1_763_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello there.', refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
  }
}

/**
 * An OpenAI-compatible fake that checks what OpenAI checks (a bearer key, a JSON body with a
 * model and messages) and answers after `delayMs` (its time to first byte), aborting with the
 * call. `answer` is read per call, so a test can change it while traffic runs.
 */
export async function fakeOpenAI(
  request: Request,
  answer: FakeAnswer,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  if (!/^Bearer sk-\S+$/.test(request.headers.get('authorization') ?? '')) {
    return Response.json(
      {
        error: {
          message: 'Incorrect API key',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
      { status: 401 },
    )
  }
  const body = (await request.json()) as { model?: unknown; messages?: unknown }
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return Response.json(
      {
        error: {
          message: 'model and messages are required',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
      { status: 400 },
    )
  }
  if ((answer.delayMs ?? 0) > 0) await delay(answer.delayMs!, signal)
  if (answer.status !== undefined) {
    const headers: Record<string, string> = {}
    if (answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter
    return Response.json(
      {
        error: {
          message: 'Rate limit reached for requests',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      { status: answer.status, headers },
    )
  }
  return Response.json(chatCompletion(body.model))
}

function delay(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason)
    })
  })
}

/** A selector that times each `select` (the selection overhead the issue asks figures of). */
export function timedSelector(registry: GroupRegistry): {
  selector: UpstreamSelector
  timings: number[]
} {
  const inner = createHealthSelector({ registry })
  const timings: number[] = []
  return {
    timings,
    selector: {
      select(group, context) {
        const started = performance.now()
        const choice = inner.select(group, context)
        timings.push(performance.now() - started)
        return choice
      },
      health: () => inner.health(),
    },
  }
}

/** The p50 and p99 of timings in ms, as text for the report. */
export function percentiles(timings: readonly number[]): { p50: number; p99: number } {
  const sorted = [...timings].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: at(0.5), p99: at(0.99) }
}

/** A gateway over `config` with the main key, its events, and the official OpenAI SDK at its defaults. */
export function routingGateway(config: Partial<GatewayConfig>): {
  gateway: GatewayHandler
  events: RequestEvent[]
  openai: OpenAI
} {
  const events: RequestEvent[] = []
  const gateway = createGateway({
    keys: [{ key: keys.main, name: 'main' }],
    usageMeter: createMemoryUsageMeter(),
    onEvent: (event) => events.push(event),
    ...config,
  })
  const openai = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
  })
  return { gateway, events, openai }
}

/** Runs `count` calls, `concurrency` at a time; returns how many failed. */
export async function runConcurrently(
  count: number,
  concurrency: number,
  call: (index: number) => Promise<unknown>,
): Promise<number> {
  let next = 0
  let failed = 0
  const worker = async () => {
    while (next < count) {
      const index = next++
      try {
        await call(index)
      } catch {
        failed += 1
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return failed
}
