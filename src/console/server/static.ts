import { uiAssets } from '../generated/ui-assets'
import { securityHeaders } from './answers'

/** The page every console URL loads: no inline script or style, the assets by hashed name. */
function shell(path: string): string {
  const asset = (name: string) => `${path}/assets/${name}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>model-gateway console</title>
<link rel="icon" href="${asset('icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${asset(`app.${uiAssets.version}.css`)}">
<script type="module" src="${asset(`app.${uiAssets.version}.js`)}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the console…</p></div>
<noscript><p>The console needs JavaScript.</p></noscript>
</body>
</html>
`
}

const files: Record<string, { body: string; type: string; immutable: boolean }> = {
  [`app.${uiAssets.version}.js`]: {
    body: uiAssets.js,
    type: 'text/javascript; charset=utf-8',
    immutable: true,
  },
  [`app.${uiAssets.version}.css`]: {
    body: uiAssets.css,
    type: 'text/css; charset=utf-8',
    immutable: true,
  },
  'icon.svg': { body: uiAssets.icon, type: 'image/svg+xml', immutable: false },
}

/** The console's page: never cached, so a new version's asset names are picked up at once. */
export function pageAnswer(path: string, head: boolean): Response {
  const headers = securityHeaders(new Headers())
  headers.set('content-type', 'text/html; charset=utf-8')
  headers.set('cache-control', 'no-store')
  return new Response(head ? null : shell(path), { status: 200, headers })
}

/**
 * An asset embedded at build time (`npm run build` bundles the UI into strings): the script and
 * style by content-hashed name, cached for a year; `undefined` for a name that is none.
 */
export function assetAnswer(name: string, request: Request): Response | undefined {
  const file = Object.hasOwn(files, name) ? files[name] : undefined // lookup-safe: own key
  if (file === undefined) return undefined
  const headers = securityHeaders(new Headers())
  const etag = `"${uiAssets.version}"`
  headers.set('etag', etag)
  headers.set(
    'cache-control',
    file.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
  )
  if (request.headers.get('if-none-match') === etag) {
    return new Response(null, { status: 304, headers })
  }
  headers.set('content-type', file.type)
  return new Response(request.method === 'HEAD' ? null : file.body, { status: 200, headers })
}
