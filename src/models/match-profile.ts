import type { ModelEntry } from './model-entry'
import { anthropicModels } from './anthropic'
import { bedrockModels } from './bedrock'
import { deepseekModels } from './deepseek'
import { embeddingModels } from './embedding-models'
import { geminiModels } from './gemini'
import { glmModels } from './glm'
import { kimiModels } from './kimi'
import { llamaModels } from './llama'
import { minimaxModels } from './minimax'
import { openaiModels } from './openai'
import {
  unknownModelProfile,
  type ModelProfile,
  type ModelProfileEntry,
  type ModelProfileOverrides,
} from './profile'
import { compileNamePattern } from './name-pattern'
import { qwenModels } from './qwen'

/** Every built-in entry, each pattern compiled once. */
const table = [
  ...openaiModels,
  ...anthropicModels,
  ...geminiModels,
  ...deepseekModels,
  ...qwenModels,
  ...glmModels,
  ...kimiModels,
  ...minimaxModels,
  ...llamaModels,
  ...bedrockModels,
  ...embeddingModels,
].map((entry) => ({ entry, patterns: entry.match.map(compileNamePattern) }))

/** Matches of the names seen so far; names come from configs and registries, so few are distinct. */
const cache = new Map<string, ModelProfile>()
const cacheLimit = 1000

/**
 * The way a model name is compared with the table's patterns: lower case; a provider or
 * organisation prefix (`openai/`, `models/`, `meta-llama/`) dropped; a Bedrock id's region and
 * vendor prefix (`us.anthropic.`) and version suffix (`-v1:0`) dropped; a Vertex version
 * (`@20250929`) dropped.
 *
 * @example
 * normalizeModelName('us.anthropic.claude-sonnet-4-5-20250929-v1:0') // 'claude-sonnet-4-5-20250929'
 */
export function normalizeModelName(name: string): string {
  let normalized = name.trim().toLowerCase()
  normalized = normalized.slice(normalized.lastIndexOf('/') + 1)
  normalized = normalized.replace(/@.*$/, '')
  normalized = normalized.replace(
    /^(?:(?:us|us-gov|eu|apac|global|jp|au|ca)\.)?(?:anthropic|meta|amazon|mistral|openai|deepseek|qwen)\./,
    '',
  )
  return normalized.replace(/-v\d+(?::\d+)?$/, '')
}

/**
 * The built-in profile of an upstream model name. Each entry holds glob patterns (`*` is any run
 * of characters; a pattern must match the whole normalised name); among the entries that match,
 * the pattern with the most literal characters wins, so `gpt-4o-mini*` beats `gpt-4o*` and a
 * dated snapshot or `-latest` alias lands on its family. A name nothing matches gets the lenient
 * `unknownModelProfile`.
 *
 * @example
 * matchModelProfile('claude-sonnet-4-5-20250929').maxOutputTokens // 64000
 */
export function matchModelProfile(name: string): ModelProfile {
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  const normalized = normalizeModelName(name)
  let best: ModelProfileEntry | undefined
  let bestSpecificity = -1
  for (const { entry, patterns } of table) {
    for (const pattern of patterns) {
      if (pattern.specificity > bestSpecificity && pattern.regex.test(normalized)) {
        best = entry
        bestSpecificity = pattern.specificity
      }
    }
  }
  const profile = best === undefined ? unknownModelProfile : withoutMatch(best)
  if (cache.size >= cacheLimit) cache.clear()
  cache.set(name, profile)
  return profile
}

/**
 * A model's profile: the built-in one for its upstream name, with the operator's overrides laid
 * over it field by field (a `reasoning` override replaces the whole control).
 */
export function resolveModelProfile(
  upstreamModel: string,
  overrides?: ModelProfileOverrides,
): ModelProfile {
  const profile = matchModelProfile(upstreamModel)
  if (overrides === undefined) return profile
  const defined = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  ) as ModelProfileOverrides
  return { ...profile, ...defined }
}

function withoutMatch(entry: ModelProfileEntry): ModelProfile {
  const { match: _match, ...profile } = entry
  return profile
}

const entryProfiles = new WeakMap<ModelEntry, ModelProfile>()

/**
 * The profile of a group's model entry (its `upstreamModel` with its `profile` overrides),
 * resolved once per entry.
 */
export function modelEntryProfile(model: ModelEntry): ModelProfile {
  let profile = entryProfiles.get(model)
  if (profile === undefined) {
    profile = resolveModelProfile(model.upstreamModel, model.profile)
    entryProfiles.set(model, profile)
  }
  return profile
}
