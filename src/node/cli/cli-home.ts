import type { MountedHandler } from '../transport/to-node-handler'

/** What `GET /` on the CLI names: nothing a client could not learn from the start output. */
export type HomeInfo = {
  name: 'model-gateway'
  version: string
  /** The base URL each client family is configured with. */
  api: { openai: string; anthropic: string; gemini: string }
  /** The console's address, or `null` when the config has no `console` section. */
  console: string | null
}

/**
 * `GET /` (and `HEAD /`) on the CLI: the gateway's name, version, API bases and console address,
 * as JSON or, for a browser (`Accept: text/html`), as a small page. Without it the root answered
 * the gateway's 404 "Unknown route", which reads as a broken install to someone who opens the
 * address the start output prints. It names no key, token or config path. Other methods and paths
 * go on to the gateway, which answers them as before.
 */
export function createHome(
  version: string,
  consolePath: string | undefined,
  basePath = '',
): MountedHandler {
  const home = async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return Response.json(
        {
          error: { message: `${request.method} / is not served: the API is under ${basePath}/v1.` },
        },
        { status: 405, headers: { allow: 'GET, HEAD' } },
      )
    }
    const origin = new URL(request.url).origin
    const info: HomeInfo = {
      name: 'model-gateway',
      version,
      // Under the config's `basePath`, where the gateway serves its routes.
      api: {
        openai: `${origin}${basePath}/v1`,
        anthropic: `${origin}${basePath}`,
        gemini: `${origin}${basePath}/v1beta`,
      },
      console: consolePath === undefined ? null : `${origin}${consolePath}/`,
    }
    const html = prefersHtml(request.headers.get('accept'))
    const body = html ? homePage(info) : `${JSON.stringify(info, null, 2)}\n`
    return new Response(request.method === 'HEAD' ? null : body, {
      headers: {
        'content-type': html ? 'text/html; charset=utf-8' : 'application/json',
        'cache-control': 'no-store',
        vary: 'accept',
      },
    })
  }
  return Object.assign(home, {
    // Only the root: `/v1/…` and everything else stay the gateway's.
    handles: (pathname: string) => pathname === '/',
  })
}

/** Whether an Accept header asks for HTML before JSON (a browser's does; curl's does not). */
function prefersHtml(accept: string | null): boolean {
  if (accept === null) return false
  const html = accept.indexOf('text/html')
  if (html < 0) return false
  const json = accept.indexOf('application/json')
  return json < 0 || html < json
}

/** Escapes text for HTML. The origin comes from the request's Host header. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function homePage(info: HomeInfo): string {
  const row = (label: string, url: string) =>
    `<tr><th scope="row">${label}</th><td><code>${escapeHtml(url)}</code></td></tr>`
  const consoleLine =
    info.console === null
      ? '<p>No console in this config (add a <code>console</code> section to serve one).</p>'
      : `<p>Console: <a href="${escapeHtml(info.console)}">${escapeHtml(info.console)}</a></p>`
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>model-gateway ${escapeHtml(info.version)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}code{overflow-wrap:anywhere}th{text-align:left;padding-right:1rem;font-weight:600}</style>
</head>
<body>
<h1>model-gateway ${escapeHtml(info.version)}</h1>
<p>This is an LLM gateway. Point a client at the base URL of its protocol, with an API key:</p>
<table>
${row('OpenAI (chat completions, Responses)', info.api.openai)}
${row('Anthropic (messages)', info.api.anthropic)}
${row('Gemini', info.api.gemini)}
</table>
${consoleLine}
</body>
</html>
`
}
