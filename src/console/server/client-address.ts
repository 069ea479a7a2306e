/**
 * The client's address as the runtime hands it to a fetch handler, or `undefined`:
 * - the Node bridge (`toNodeHandler`, `serveGateway`): `{ remoteAddress }` from the socket;
 * - Deno.serve: `info.remoteAddr.hostname`;
 * - Bun.serve: `server.requestIP(request).address`;
 * - Cloudflare Workers: the `cf-connecting-ip` header, which Cloudflare sets (the handler's
 *   context is then the `ExecutionContext`, with `waitUntil`).
 * Headers such as `x-forwarded-for` are never read: any client can write them.
 */
export function runtimeClientAddress(request: Request, context?: object): string | undefined {
  if (context === undefined || context === null) return undefined
  const seen = context as {
    remoteAddress?: unknown
    remoteAddr?: { hostname?: unknown }
    requestIP?: unknown
    waitUntil?: unknown
  }
  if (typeof seen.remoteAddress === 'string') return seen.remoteAddress
  if (typeof seen.remoteAddr?.hostname === 'string') return seen.remoteAddr.hostname
  if (typeof seen.requestIP === 'function') {
    const found = (seen.requestIP as (request: Request) => { address?: unknown } | null).call(
      context,
      request,
    )
    if (typeof found?.address === 'string') return found.address
  }
  if (typeof seen.waitUntil === 'function') {
    return request.headers.get('cf-connecting-ip') ?? undefined
  }
  return undefined
}
