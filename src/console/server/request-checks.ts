import { readTextWithLimit } from '../../http/read-body'
import { isJsonObject, parseJson } from '../../internal/json'
import { ConsoleError } from './answers'

/** The largest body the console's API reads. */
const maxBodyBytes = 16 * 1024

/**
 * The origins a mutation may come from: the console's own, as the request reached it or as a
 * TLS-terminating proxy says it was reached (`x-forwarded-proto: https` on the same host), and
 * the configured public base address.
 */
function allowedOrigins(request: Request, url: URL, publicBaseUrl: string | undefined): string[] {
  const origins = [url.origin]
  if (request.headers.get('x-forwarded-proto') === 'https') origins.push(`https://${url.host}`)
  if (publicBaseUrl !== undefined) origins.push(new URL(publicBaseUrl).origin)
  return origins
}

/**
 * The CSRF defence's first half, for every request that changes something: it must come from a
 * page of the console's own origin (`Origin`, which browsers always send on such requests and
 * pages cannot forge), and not from another site (`Sec-Fetch-Site`). A request without `Origin`
 * is refused too: the console's own page always sends it. The second half is the CSRF token.
 */
export function checkOrigin(request: Request, url: URL, publicBaseUrl: string | undefined): void {
  const origin = request.headers.get('origin')
  if (origin === null) {
    throw new ConsoleError(
      403,
      'This request has no Origin header: changes come from the console page.',
    )
  }
  if (!allowedOrigins(request, url, publicBaseUrl).includes(origin)) {
    throw new ConsoleError(
      403,
      `Changes are accepted from the console's own page only, not from ${origin}.`,
    )
  }
  const site = request.headers.get('sec-fetch-site')
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    throw new ConsoleError(403, "Changes are accepted from the console's own page only.")
  }
}

/**
 * The JSON object a mutation sends: `application/json` (which a plain HTML form cannot send),
 * at most 16 KiB, an object. Anything else is a 4xx with a message the page shows.
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ConsoleError(415, 'Send the body as application/json.')
  }
  let text: string
  try {
    text = await readTextWithLimit(request.body, maxBodyBytes)
  } catch {
    throw new ConsoleError(413, `The body is larger than ${maxBodyBytes} bytes.`)
  }
  const parsed = parseJson(text === '' ? '{}' : text)
  if (!parsed.ok) throw new ConsoleError(400, 'The body is not valid JSON.')
  if (!isJsonObject(parsed.value)) throw new ConsoleError(400, 'The body must be a JSON object.')
  return parsed.value
}
