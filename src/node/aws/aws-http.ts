import { readUpstreamText } from '../../upstream/read-upstream-answer'

/** The most of a credential endpoint's answer that is read. */
const maxAnswerBytes = 64 * 1024

/** An answer of a credential endpoint: its status and (bounded) text. */
export type EndpointAnswer = { status: number; text: string }

/** How a credential endpoint is asked. */
export type EndpointRequest = {
  method?: 'GET' | 'PUT'
  headers?: Record<string, string>
  /** Gives up after this long: a machine without the endpoint must fail fast. */
  timeoutMs: number
  fetch?: typeof fetch | undefined
}

/**
 * Asks a local credential endpoint (the container's, the instance metadata service): never
 * follows a redirect (a redirect to elsewhere could take the token along), gives up after
 * `timeoutMs`, reads at most 64 KiB. Errors name the URL only, never a header.
 */
export async function askEndpoint(url: string, options: EndpointRequest): Promise<EndpointAnswer> {
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: options.method ?? 'GET',
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    })
    return {
      status: response.status,
      text: await readUpstreamText(response.body?.getReader() ?? null, maxAnswerBytes),
    }
  } catch (error) {
    throw new Error(
      `${url} could not be reached: ${(error as Error).name === 'TimeoutError' ? `no answer in ${options.timeoutMs} ms` : (error as Error).message}`,
    )
  }
}

/**
 * The credentials in a container or instance metadata JSON answer (`AccessKeyId`,
 * `SecretAccessKey`, `Token`, `Expiration`); the error names what was missing, never a value.
 */
export function credentialsOfJson(text: string, where: string) {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error(`${where} answered with a body that is not JSON.`)
  }
  const body = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >
  const { AccessKeyId, SecretAccessKey, Token, Expiration } = body
  if (
    typeof AccessKeyId !== 'string' ||
    AccessKeyId === '' ||
    typeof SecretAccessKey !== 'string' ||
    SecretAccessKey === ''
  ) {
    throw new Error(`${where} answered without AccessKeyId and SecretAccessKey.`)
  }
  const expiresAt = typeof Expiration === 'string' ? Date.parse(Expiration) : Number.NaN
  return {
    value: {
      accessKeyId: AccessKeyId,
      secretAccessKey: SecretAccessKey,
      sessionToken: typeof Token === 'string' && Token !== '' ? Token : undefined,
    },
    expiresAt: Number.isFinite(expiresAt) ? expiresAt : undefined,
  }
}
