import type { ProtocolName } from '../protocols/protocol-name'
import type { HttpEntrySettings } from './entry-shape'
import { createHttpProvider } from './http-provider'
import type { UpstreamKindContext } from './kind'
import type { UpstreamProvider } from './provider'

/**
 * The upstream of a built-in HTTP kind's entry: the HTTP provider over its family's wire, with the
 * config's `fetch`.
 */
export function createFamilyUpstream(
  settings: HttpEntrySettings & { provider?: string; responses?: boolean | undefined },
  protocol: ProtocolName,
  context: UpstreamKindContext,
): UpstreamProvider {
  const { provider: _kind, responses: _responses, ...http } = settings
  return createHttpProvider({ ...http, id: context.id, protocol, fetch: context.fetch })
}
