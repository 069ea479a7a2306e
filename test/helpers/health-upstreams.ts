import { http, HttpResponse } from 'msw'
import { anthropicModelAnswer, checkAnthropicRequest } from './fakes/anthropic-fake'
import { checkGeminiRequest, geminiModelAnswer } from './fakes/gemini-fake'
import { checkOpenAIRequest, openAIModelAnswer } from './fakes/openai-fake'
import { modelAnswer, parseBody } from './upstream'

/** The hosts of the scripted upstreams: `https://<host>.test`. */
export const healthHosts = ['oa-1', 'oa-2', 'oa-3', 'an-1', 'an-2', 'ge-1'] as const
export type HealthHost = (typeof healthHosts)[number]

/** The base URL of a host, by its family's SDK convention (OpenAI's with `/v1`). */
export const baseUrlOf = (host: HealthHost) =>
  host.startsWith('oa-') ? `https://${host}.test/v1` : `https://${host}.test`

/** One call a scripted upstream received. */
export type HostCall = {
  host: HealthHost
  path: string
  /** The credential it carried (`authorization` without `Bearer`, `x-api-key`, `x-goog-api-key`). */
  key: string | null
  body: Record<string, any> | undefined
}

/**
 * What a host answers a call with: a response, or `undefined` for the vendor's own answer (the
 * fakes' model, with the vendor's request rules enforced).
 */
export type HostScript = (call: HostCall) => Response | undefined | Promise<Response | undefined>

/**
 * Scripted upstreams of the three families for the health tests: each host records its calls and
 * answers as its script says, else as the vendor would. Errors come from the `vendorErrors` below,
 * written as each vendor writes them.
 */
export function healthUpstreams() {
  const calls: HostCall[] = []
  const scripts = new Map<HealthHost, HostScript>()
  /** Calls currently being answered, per host, and the most seen at once. */
  const open = new Map<HealthHost, number>()
  const peak = new Map<HealthHost, number>()

  const record = async (host: HealthHost, request: Request): Promise<HostCall> => {
    const authorization = request.headers.get('authorization')
    const call: HostCall = {
      host,
      path: new URL(request.url).pathname,
      key:
        authorization?.replace(/^Bearer /, '') ??
        request.headers.get('x-api-key') ??
        request.headers.get('x-goog-api-key'),
      body: parseBody(await request.text()),
    }
    calls.push(call)
    return call
  }
  /** Counts the call open until its answer's body is done (or cancelled). */
  const tracked = (host: HealthHost, response: Response): Response => {
    const now = (open.get(host) ?? 0) + 1
    open.set(host, now)
    peak.set(host, Math.max(peak.get(host) ?? 0, now))
    let closed = false
    const close = () => {
      if (closed) return
      closed = true
      open.set(host, (open.get(host) ?? 1) - 1)
    }
    if (response.body === null) {
      close()
      return response
    }
    const reader = response.body.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read()
        if (done) {
          close()
          controller.close()
        } else controller.enqueue(value)
      },
      cancel(reason) {
        close()
        return reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }

  const handlers = healthHosts.flatMap((host) => {
    const base = baseUrlOf(host)
    const serve =
      (fallback: (call: HostCall) => Response) =>
      async ({ request }: { request: Request }) => {
        const call = await record(host, request)
        const scripted = await scripts.get(host)?.(call)
        return tracked(host, scripted ?? fallback(call))
      }
    if (host.startsWith('oa-')) {
      return [
        http.post(
          `${base}/chat/completions`,
          serve(({ body }) => {
            const refused = body === undefined ? undefined : checkOpenAIRequest(body)
            if (refused !== undefined)
              return HttpResponse.json(refused.body, { status: refused.status })
            return modelAnswer(openAIModelAnswer(body ?? {}))
          }),
        ),
      ]
    }
    if (host.startsWith('an-')) {
      return [
        http.post(
          `${base}/v1/messages`,
          serve(({ body }) => {
            const refused = body === undefined ? undefined : checkAnthropicRequest(body)
            if (refused !== undefined)
              return HttpResponse.json(refused.body, { status: refused.status })
            return modelAnswer(anthropicModelAnswer(body ?? {}))
          }),
        ),
        http.post(
          `${base}/v1/messages/count_tokens`,
          serve(() => HttpResponse.json({ input_tokens: 42 })),
        ),
      ]
    }
    return [
      http.post(
        `${base}/v1beta/models/:action`,
        serve(({ path, body }) => {
          const [model = '', action = ''] = decodeURIComponent(path.split('/').at(-1)!).split(':')
          const refused = body === undefined ? undefined : checkGeminiRequest(model, body)
          if (refused !== undefined)
            return HttpResponse.json(refused.body, { status: refused.status })
          return modelAnswer(
            geminiModelAnswer(model, body ?? {}, action === 'streamGenerateContent'),
          )
        }),
      ),
    ]
  })

  return {
    handlers,
    calls,
    /** Calls a host received, optionally only those with this path suffix. */
    callsTo: (host: HealthHost, suffix = '') =>
      calls.filter((call) => call.host === host && call.path.endsWith(suffix)),
    /** The most calls a host was answering at once. */
    peak: (host: HealthHost) => peak.get(host) ?? 0,
    script(host: HealthHost, script: HostScript | undefined) {
      if (script === undefined) scripts.delete(host)
      else scripts.set(host, script)
    },
    reset() {
      calls.length = 0
      scripts.clear()
      open.clear()
      peak.clear()
    },
  }
}

/**
 * Each vendor's errors as it writes them: status, body and the headers that matter here.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://docs.anthropic.com/en/api/errors
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 */
export const vendorErrors = {
  openAIRateLimit: (retryAfterSeconds: number) =>
    HttpResponse.json(
      {
        error: {
          message:
            'Rate limit reached for gpt-4o-mini in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1.',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  openAIOverloaded: () =>
    HttpResponse.json(
      {
        error: {
          message: 'The engine is currently overloaded, please try again later',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
      { status: 503 },
    ),
  anthropicRateLimit: (retryAfterSeconds: number) =>
    HttpResponse.json(
      {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message:
            'This request would exceed the rate limit for your organization of 50 requests per minute.',
        },
        request_id: 'req_011CFakeRateLimit',
      },
      { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  anthropicOverloaded: () =>
    HttpResponse.json(
      {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: 'req_011CFakeOverloaded',
      },
      { status: 529 },
    ),
  anthropicInvalidKey: () =>
    HttpResponse.json(
      {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: 'req_011CFakeAuth',
      },
      { status: 401 },
    ),
  anthropicNotFound: () =>
    HttpResponse.json(
      {
        type: 'error',
        error: { type: 'not_found_error', message: 'Not found' },
        request_id: 'req_011CFakeNotFound',
      },
      { status: 404 },
    ),
  geminiExhausted: (retryDelaySeconds: number) =>
    HttpResponse.json(
      {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.RetryInfo',
              retryDelay: `${retryDelaySeconds}s`,
            },
          ],
        },
      },
      { status: 429 },
    ),
}
