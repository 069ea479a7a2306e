import type { PriceSurcharge } from '../../pricing/price-surcharge'
import { normalizeModelName } from '../match-profile'

/**
 * Anthropic's pricing page, "Third-party platform pricing": from Claude Sonnet 4.5, Haiku 4.5 and
 * Opus 4.5 on ("and all future models"), Amazon Bedrock and Google Cloud Vertex AI offer global
 * endpoints and regional (on Vertex also multi-region) endpoints, and "regional and multi-region
 * endpoints include a 10% premium over global endpoints". Earlier models (Opus 4.1 and before)
 * keep one price wherever they run. Read 2026-11-28.
 *
 * @see https://platform.claude.com/docs/en/about-claude/pricing#third-party-platform-pricing
 */
export const claudeRegionalPremium: PriceSurcharge = Object.freeze({
  multiplier: 1.1,
  source: 'https://platform.claude.com/docs/en/about-claude/pricing#third-party-platform-pricing',
})

/**
 * Whether an upstream model is a Claude model the regional premium applies to: a named family
 * (`claude-sonnet-4-5`, `claude-opus-4-6`, `claude-haiku-4-5-20251001`, any later major version),
 * its cloud spelling included (`claude-sonnet-4-5@20250929`, `us.anthropic.claude-…-v1:0`). The
 * older `claude-3-5-sonnet` naming, Claude 4 and 4.1 are not; nor is a name that says no model
 * (an application inference profile's ARN).
 */
export function hasRegionalPremium(upstreamModel: string): boolean {
  const match = /^claude-[a-z]+-(\d+)(?:-(\d{1,2})(?=-|$))?/.exec(normalizeModelName(upstreamModel))
  if (match === null) return false
  const major = Number(match[1])
  const minor = match[2] === undefined ? 0 : Number(match[2])
  return major > 4 || (major === 4 && minor >= 5)
}
