import { stringOf } from '../../internal/json'

/**
 * The endpoint AWS's own variables set for a service (AWS's "service-specific endpoints"):
 * `AWS_ENDPOINT_URL_<SERVICE>` (the service id in upper case, spaces as `_`: `STS`,
 * `BEDROCK_RUNTIME`), else `AWS_ENDPOINT_URL`; none when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is
 * `true`. Read from the context's `env`, so a Worker passes its own. The URL has no trailing `/`.
 */
export function awsEndpoint(
  env: Readonly<Record<string, unknown>> | undefined,
  service: string,
): string | undefined {
  if (env === undefined) return undefined
  const read = (name: string): unknown => (Object.hasOwn(env, name) ? env[name] : undefined) // lookup-safe: own keys only
  if (stringOf(read('AWS_IGNORE_CONFIGURED_ENDPOINT_URLS')).toLowerCase() === 'true') {
    return undefined
  }
  for (const name of [`AWS_ENDPOINT_URL_${service}`, 'AWS_ENDPOINT_URL']) {
    const value = read(name)
    if (typeof value === 'string' && value.trim() !== '') return value.trim().replace(/\/+$/, '')
  }
  return undefined
}
