import { claudeRegionalPremium, hasRegionalPremium } from '../../models/prices/claude-regional'
import { memoisedSurcharge } from '../../pricing/price-surcharge'

/**
 * The price of a model id on Bedrock over the catalogue's: Claude 4.5 and later cost 10% more
 * (`claudeRegionalPremium`) unless called through a `global.` inference profile — a geographic
 * profile (`us.`, `eu.`, `apac.`, `jp.`, `au.`…) and an in-region call (`anthropic.…`, a
 * foundation-model ARN) are regional endpoints. An ARN is read by its last segment
 * (`inference-profile/global.anthropic.…`); an application inference profile's or a provisioned
 * model's ARN names no model and gets no surcharge (price such an entry with `price` or
 * `priceMultiplier`).
 */
export const bedrockSurcharge = memoisedSurcharge((upstreamModel) => {
  const id = upstreamModel.slice(upstreamModel.lastIndexOf('/') + 1).toLowerCase()
  if (id.startsWith('global.')) return undefined
  return hasRegionalPremium(id) ? claudeRegionalPremium : undefined
})
