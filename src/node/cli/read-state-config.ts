import { checkConfig } from '../../config/check-config'
import { expandEnv, type MissingEnv } from '../../config/expand-env'
import { GatewayConfigError, type ConfigIssue } from '../../config/parse-config'
import { configSchemas, type StateConfig } from '../../config/schema'

/**
 * Reads the `state` section of a config: `${NAME}` expanded from `env`, then validated.
 *
 * @throws GatewayConfigError listing every bad field of `state`
 */
export function readStateConfig(
  state: unknown,
  env: Readonly<Record<string, unknown>> = process.env,
): StateConfig | undefined {
  if (state === undefined) return undefined
  const missing: MissingEnv[] = []
  const expanded = expandEnv(state, env, missing, 'state')
  const issues: ConfigIssue[] = missing.map(({ path, name }) => ({
    path,
    message: `environment variable ${name} is not set`,
  }))
  const result = checkConfig(configSchemas().stateConfigSchema, expanded)
  if (!result.success) {
    for (const issue of result.error.issues) {
      issues.push({ path: ['state', ...issue.path].join('.'), message: issue.message })
    }
  }
  if (issues.length > 0 || !result.success) throw new GatewayConfigError(issues)
  return result.data
}
