import { GatewayError } from '../errors'
import type { UpstreamProvider } from '../upstream/provider'

/**
 * Picks one upstream by weight (default 1). `random` returns a number in [0, 1), as
 * `Math.random` does; it is injected so that tests can pin the choice.
 */
export function pickUpstream(
  upstreams: readonly UpstreamProvider[],
  random: () => number,
): UpstreamProvider {
  if (upstreams.length === 1) return upstreams[0]!
  let total = 0
  for (const upstream of upstreams) total += upstream.weight ?? 1
  let point = random() * total
  for (const upstream of upstreams) {
    point -= upstream.weight ?? 1
    if (point < 0) return upstream
  }
  const last = upstreams.at(-1)
  if (last === undefined) throw new GatewayError('internal', 'The group has no upstreams.')
  return last
}
