import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { modelEntryProfile } from '../models/match-profile'
import { jsonBytesPerFloat } from '../protocols/embeddings/embedding-limits'
import type { Route } from '../routing/resolve-route'
import type { ProtocolName } from '../protocols/protocol-name'
import type { RoutedCall } from './route-call'
import type { CommonPlan } from './call-plan'

/** The wire an upstream embeds on: OpenAI's `/embeddings` or Gemini's `:embedContent`. */
export type EmbeddingFamily = 'openai' | 'gemini'

/**
 * An embedding call routed and estimated: its input estimate, and no output allowance (an
 * embedding has no output tokens), so that a key's token limits hold exactly the input and an
 * answer that reports no usage settles at that estimate. Never streamed; no session affinity.
 */
export function routeEmbedding(
  scope: RequestScope,
  route: Route,
  call: {
    model: string
    estimatedTokens: number
    /** The client's protocol and its body, as the call's interceptors see them. */
    protocol: ProtocolName
    body: unknown
  },
): RoutedCall {
  const { model, estimatedTokens } = call
  scope.event.stream = false
  return {
    route,
    model,
    stream: false,
    protocol: call.protocol,
    body: call.body,
    sessionHint: undefined,
    estimatedTokens,
    estimate: { inputTokens: estimatedTokens, outputTokens: 0 },
    // `requested` keeps a fallback's allowance at 0 too (`rerouteCall`).
    output: { limit: 0, requested: true, reserve: 0 },
  }
}

/**
 * The embedding wire of the upstream chosen for a call. An Anthropic upstream has no embeddings:
 * a 400 naming the group, in the caller's protocol — at the first attempt the client's error; a
 * fallback to such a group is passed over.
 */
export function embeddingFamily(common: CommonPlan): EmbeddingFamily {
  const protocol = common.provider.protocol
  if (protocol === 'gemini') return 'gemini'
  // An OpenAI upstream marked `responses: true` is still OpenAI's API: `/embeddings` is beside it.
  if (protocol === 'openai' || protocol === 'responses') return 'openai'
  const group = common.route.group.id
  throw new GatewayError(
    'invalid_request',
    `Model \`${common.model}\` is served by group \`${group}\`, an Anthropic group: Anthropic has no embeddings API. Route embedding models to an OpenAI or Gemini group.`,
    { param: 'model' },
  )
}

/**
 * Refuses, before any upstream call, an answer larger than the gateway reads from an upstream
 * (`maxResponseBytes`): inputs × dimensions (the requested ones, else the model profile's) at the
 * most a JSON float takes. A 400 naming `param`, so the client asks for fewer inputs or
 * dimensions instead of paying for an answer the gateway would have to drop.
 */
export function checkEmbeddingAnswerSize(
  runtime: GatewayRuntime,
  route: Route,
  inputs: number,
  dimensions: number | undefined,
  param: string,
): void {
  const perVector = dimensions ?? modelEntryProfile(route.model).embedding?.dimensions
  if (perVector === undefined) return
  const bytes = inputs * perVector * jsonBytesPerFloat
  if (bytes <= runtime.maxResponseBytes) return
  throw new GatewayError(
    'invalid_request',
    `${inputs} embeddings of ${perVector} dimensions may take ${bytes} bytes, over the gateway's answer limit of ${runtime.maxResponseBytes}: send fewer inputs, or ask for fewer dimensions.`,
    { param },
  )
}

/** Embeddings are never streamed: a plan's stream translator is never asked for. */
export function noStream(): never {
  throw new Error('An embedding call has no stream.')
}
