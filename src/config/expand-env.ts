/** A `${NAME}` reference to an environment variable that is not set (or is not a string). */
export type MissingEnv = { path: string; name: string }

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Replaces `${NAME}` in every string of a JSON-like config with the environment variable's value.
 * Only plain objects and arrays are walked, so plug-in objects passed in code stay untouched.
 * Missing variables are collected, not thrown, so one error can list them all.
 */
export function expandEnv(
  value: unknown,
  env: Readonly<Record<string, unknown>>,
  missing: MissingEnv[],
  path = '',
): unknown {
  if (typeof value === 'string') {
    return value.replace(reference, (whole, name: string) => {
      const found = Object.hasOwn(env, name) ? env[name] : undefined // lookup-safe: own key
      if (typeof found !== 'string') {
        missing.push({ path, name })
        return whole
      }
      return found
    })
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => expandEnv(item, env, missing, `${path}[${index}]`))
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        expandEnv(item, env, missing, path === '' ? key : `${path}.${key}`),
      ]),
    )
  }
  return value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
