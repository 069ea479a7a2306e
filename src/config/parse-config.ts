import { expandEnv, type MissingEnv } from './expand-env'
import { checkConfig } from './check-config'
import { configSchemas, type GatewayConfig, type ValidGatewayConfig } from './schema'

/** One problem with a config, at a path such as `groups[0].upstreams[1].baseUrl`. */
export type ConfigIssue = { path: string; message: string }

/**
 * Thrown by `createGateway` for an invalid config. Its message lists every problem, one per line,
 * so a CLI can print it as it is; `issues` has them as data.
 */
export class GatewayConfigError extends Error {
  readonly issues: readonly ConfigIssue[]

  constructor(issues: readonly ConfigIssue[]) {
    super(
      `Invalid gateway config:\n${issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n')}`,
    )
    this.name = 'GatewayConfigError'
    this.issues = issues
  }
}

/**
 * Expands `${NAME}` references, validates the config with zod and applies defaults.
 *
 * @throws GatewayConfigError listing every bad field by its path
 */
export function parseGatewayConfig(config: GatewayConfig): ValidGatewayConfig {
  // A config that is not an object (null, a number) is reported by the schema, not a TypeError.
  const env =
    (typeof config === 'object' && config !== null ? config.env : undefined) ?? readProcessEnv()
  const missing: MissingEnv[] = []
  const expanded = expandEnv(config, env, missing)
  const result = checkConfig(configSchemas().gatewayConfigSchema, expanded)
  const issues: ConfigIssue[] = missing.map(({ path, name }) => ({
    path,
    message: `environment variable ${name} is not set`,
  }))
  if (!result.success) {
    for (const issue of result.error.issues) {
      issues.push({ path: formatPath(issue.path), message: issue.message })
    }
  }
  if (issues.length > 0 || !result.success) throw new GatewayConfigError(issues)
  return result.data
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = ''
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? String(part) : `.${String(part)}`
  }
  return text
}

/** `process.env` where the runtime has one (Node, Bun, Deno); Workers pass `env` explicitly. */
export function readProcessEnv(): Readonly<Record<string, unknown>> {
  const processLike = (globalThis as { process?: { env?: Record<string, string | undefined> } })
    .process
  return processLike?.env ?? {}
}
