import { createServer } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeAwsCredentials, nodeCloudCredentials } from '../../src/node/index'
import { parseIni } from '../../src/node/aws/shared-files'
import { createAwsAuth } from '../../src/upstream/aws/aws-auth'
import type { UpstreamCall } from '../../src/upstream/provider'
import { startContainerFake, startImdsFake, startStsFake } from '../upstream/aws/credential-fakes'

/** A fetch that refuses any host but the loopback: no test may reach AWS or 169.254.x. */
const loopbackOnly: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (url.hostname !== '127.0.0.1') throw new Error(`test traffic to ${url.host} refused`)
  return fetch(input, init)
}

const region = 'us-east-2'
const roleArn = 'arn:aws:iam::123456789012:role/gateway'
/** Every endpoint variable pointed at nothing real; IMDS off unless a test fakes it. */
const quiet = { AWS_EC2_METADATA_DISABLED: 'true' }

describe('the Node AWS credential chain', () => {
  let home = ''
  let sts: Awaited<ReturnType<typeof startStsFake>>
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'mg-aws-home-'))
    sts = await startStsFake({
      region,
      callers: { AKIDSOURCE: 'source/secret' },
      roleArn,
      webIdentityToken: 'eyJ.projected.token-1',
    })
  })
  afterAll(async () => {
    await sts.close()
    await rm(home, { recursive: true, force: true })
  })
  const chain = (env: Record<string, string>) =>
    nodeAwsCredentials({ env: { ...quiet, ...env }, home, fetch: loopbackOnly })

  it('reads the AWS_* variables first', async () => {
    const credential = await chain({
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_SESSION_TOKEN: 'env-token',
      AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z',
    })()
    expect(credential).toEqual({
      value: { accessKeyId: 'AKIDENV', secretAccessKey: 'env-secret', sessionToken: 'env-token' },
      expiresAt: Date.UTC(2030, 0, 1),
    })
  })

  it('reads the shared files of AWS_PROFILE (in a temporary HOME), over the variables', async () => {
    const credentials = join(home, 'credentials')
    const config = join(home, 'config')
    await writeFile(
      credentials,
      '# comment\n[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default-secret\n\n[dev]\naws_access_key_id=AKIDDEV\naws_secret_access_key = dev/secret\naws_session_token = dev-token\n',
    )
    await writeFile(
      config,
      '[profile dev]\nregion = eu-west-1\ns3 =\n  max_concurrent_requests = 20\n',
    )
    const files = { AWS_SHARED_CREDENTIALS_FILE: credentials, AWS_CONFIG_FILE: config }
    expect(
      (
        await chain({
          ...files,
          AWS_PROFILE: 'dev',
          AWS_ACCESS_KEY_ID: 'AKIDENV',
          AWS_SECRET_ACCESS_KEY: 'x',
        })()
      ).value,
    ).toEqual({
      accessKeyId: 'AKIDDEV',
      secretAccessKey: 'dev/secret',
      sessionToken: 'dev-token',
    })
    expect((await chain(files)()).value.accessKeyId).toBe('AKIDDEFAULT')
    await expect(chain({ ...files, AWS_PROFILE: 'missing' })()).rejects.toThrow(
      'The AWS profile "missing" is not in the shared files.',
    )
  })

  it("assumes a profile's role_arn with its source_profile through STS (AWS_ENDPOINT_URL_STS)", async () => {
    const config = join(home, 'config-role')
    await writeFile(
      config,
      `[profile source]\naws_access_key_id = AKIDSOURCE\naws_secret_access_key = source/secret\n[profile gw]\nrole_arn = ${roleArn}\nsource_profile = source\nregion = ${region}\nrole_session_name = gw-session\n`,
    )
    const credential = await chain({
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      AWS_PROFILE: 'gw',
      AWS_ENDPOINT_URL_STS: sts.url,
    })()
    expect(credential.value.sessionToken).toMatch(/^role-session-token-\d+$/)
    expect(credential.expiresAt).toBeGreaterThan(Date.now())
    expect(sts.calls.at(-1)!.get('RoleSessionName')).toBe('gw-session')
  })

  it('says what it does not support instead of falling through', async () => {
    const config = join(home, 'config-sso')
    await writeFile(
      config,
      '[profile sso]\nsso_session = corp\nsso_account_id = 1\n[sso-session corp]\nsso_start_url = https://x\n',
    )
    await expect(
      chain({
        AWS_CONFIG_FILE: config,
        AWS_PROFILE: 'sso',
        AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      })(),
    ).rejects.toThrow(/uses sso_session, which the gateway does not support/)
  })

  it('assumes AWS_ROLE_ARN with the web identity token file, read afresh, unsigned', async () => {
    const tokenFile = join(home, 'token')
    await writeFile(tokenFile, 'eyJ.projected.token-1\n')
    const env = {
      AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
      AWS_ROLE_ARN: roleArn,
      AWS_ENDPOINT_URL_STS: sts.url,
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      AWS_CONFIG_FILE: join(home, 'none'),
    }
    const credential = await chain(env)()
    expect(credential.value.accessKeyId).toMatch(/^ASIAROLE\d+$/)
    const call = sts.calls.at(-1)!
    expect(call.get('Action')).toBe('AssumeRoleWithWebIdentity')
    expect(call.get('WebIdentityToken')).toBe('eyJ.projected.token-1')
    await writeFile(tokenFile, 'eyJ.rotated')
    const refused = await chain(env)().catch((error: Error) => error)
    expect(sts.calls.at(-1)!.get('WebIdentityToken')).toBe('eyJ.rotated')
    expect((refused as Error).message).toMatch(/InvalidIdentityToken/)
    expect((refused as Error).message).not.toContain('eyJ.rotated')
  })

  describe('container credentials', () => {
    let container: Awaited<ReturnType<typeof startContainerFake>>
    beforeAll(async () => {
      container = await startContainerFake({
        path: '/v2/credentials/abc',
        token: 'container-auth-token',
        lifetimeMs: 8 * 60_000,
      })
    })
    afterAll(() => container.close())
    const none = () => ({
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      AWS_CONFIG_FILE: join(home, 'none'),
    })

    it("sends the authorization token (or the token file's), once per burst, again near expiry", async () => {
      let clock = Date.now()
      const aws = chain({
        ...none(),
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `${container.url}/v2/credentials/abc`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-auth-token',
      })
      const auth = createAwsAuth({ region }, { now: () => clock, cloudCredentials: { aws } })
      const request = () => ({
        url: 'https://bedrock-runtime.us-east-2.amazonaws.com/model/m/invoke',
        method: 'POST',
        headers: {},
        body: '{}',
      })
      const signed = await Promise.all(
        Array.from({ length: 200 }, () => auth.sign(request(), {} as UpstreamCall)),
      )
      expect(container.issued).toBe(1)
      expect(signed[199]!.headers['x-amz-security-token']).toBe('container-token-1')
      clock += 5 * 60_000 // 3 minutes left of 8: refreshed at half its life, once
      await Promise.all(Array.from({ length: 50 }, () => auth.sign(request(), {} as UpstreamCall)))
      expect(container.issued).toBe(2)
      expect(auth.secrets()).toContain('container-token-2')

      const tokenFile = join(home, 'pod-identity-token')
      await writeFile(tokenFile, 'container-auth-token\n')
      const fromFile = await chain({
        ...none(),
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `${container.url}/v2/credentials/abc`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: tokenFile,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'wrong',
      })()
      expect(fromFile.value.secretAccessKey).toMatch(/^container-secret-\d+$/)
    })

    it('refuses a wrong token without repeating it, a plain-http host that is not local, and a redirect', async () => {
      const wrong = await chain({
        ...none(),
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `${container.url}/v2/credentials/abc`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'stolen-token-value',
      })().catch((error: Error) => error)
      expect((wrong as Error).message).toBe('The container credentials endpoint answered 401.')
      await expect(
        chain({ ...none(), AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://10.0.0.8/creds' })(),
      ).rejects.toThrow(/must be https, or http to the loopback/)
      const redirector = createServer((_request, response) => {
        response.writeHead(302, { location: `${container.url}/v2/credentials/abc` }).end()
      })
      await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
      const issued = container.issued
      const redirected = chain({
        ...none(),
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/x`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-auth-token',
      })()
      await expect(redirected).rejects.toThrow('The container credentials endpoint answered 302.')
      expect(container.issued).toBe(issued)
      await new Promise<void>((resolve) => redirector.close(() => resolve()))
    })
  })

  it('asks IMDSv2 with a PUT session token, at AWS_EC2_METADATA_SERVICE_ENDPOINT', async () => {
    const imds = await startImdsFake({ role: 'gateway-instance' })
    try {
      const credential = await nodeAwsCredentials({
        env: {
          AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.url,
          AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
          AWS_CONFIG_FILE: join(home, 'none'),
        },
        home,
        fetch: loopbackOnly,
      })()
      expect(credential.value).toEqual({
        accessKeyId: 'ASIAIMDS1',
        secretAccessKey: 'imds-secret-1',
        sessionToken: 'imds-session-1',
      })
      expect(imds.requests).toEqual([
        'PUT /latest/api/token',
        'GET /latest/meta-data/iam/security-credentials/',
        'GET /latest/meta-data/iam/security-credentials/gateway-instance',
      ])
    } finally {
      await imds.close()
    }
  })

  it('fails fast, saying where it looked, when nothing is configured', async () => {
    const started = Date.now()
    await expect(
      chain({
        AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
        AWS_CONFIG_FILE: join(home, 'none'),
      })(),
    ).rejects.toThrow(/^No AWS credentials: none in the AWS_\* variables/)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(typeof nodeCloudCredentials().aws).toBe('function')
  })
})

describe('the shared-file reader', () => {
  it('reads sections, keys in lower case, skips comments and nested settings', () => {
    const sections = parseIni(
      '[ profile  a ]\nAWS_Access_Key_Id = K\n; c\n# c\nregion=eu\ns3 =\n  region = no\n[b]\nx = y = z\n',
    )
    expect([...sections.keys()]).toEqual(['profile a', 'b'])
    expect(Object.fromEntries(sections.get('profile a')!)).toEqual({
      aws_access_key_id: 'K',
      region: 'eu',
      s3: '',
    })
    expect(sections.get('b')!.get('x')).toBe('y = z')
  })
})
