/**
 * CPU per SigV4-signed request and credential fetches per burst, for the Bedrock figures:
 * `npx tsx bench/aws-sign.ts`. Signs a typical Claude-on-Bedrock request (a 2 KB body, a model id
 * with `:`) many times through `createAwsAuth`, sequentially, and reports the mean CPU time per
 * sign (process CPU, user + system, so Web Crypto's native work is counted); then fires a burst of
 * 200 concurrent signs across two upstreams on one credential callback and counts its fetches.
 */
import { createAwsAuth } from '../src/upstream/aws/aws-auth'
import type { UpstreamCall } from '../src/upstream/provider'

const call = {} as UpstreamCall
const body = JSON.stringify({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'x'.repeat(2000) }],
})
const request = () => ({
  url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'client/1',
  } as Record<string, string>,
  body,
})

async function cpuPerSign(runs: number): Promise<number> {
  const auth = createAwsAuth(
    {
      region: 'us-east-1',
      accessKeyId: 'AKIDBENCH',
      secretAccessKey: 'bench/secret',
      sessionToken: 'bench-token',
    },
    { now: Date.now },
  )
  for (let i = 0; i < 1_000; i++) await auth.sign(request(), call) // warm up
  const start = process.cpuUsage()
  for (let i = 0; i < runs; i++) await auth.sign(request(), call)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / runs
}

async function fetchesPerBurst(size: number): Promise<number> {
  let fetches = 0
  const credentials = async () => {
    fetches += 1
    await new Promise((resolve) => setTimeout(resolve, 10))
    return {
      accessKeyId: 'AKIDBENCH',
      secretAccessKey: 'bench/secret',
      sessionToken: 't',
      expiration: Date.now() + 3_600_000,
    }
  }
  const upstreams = [
    createAwsAuth({ region: 'us-east-1', credentials }, { now: Date.now }),
    createAwsAuth({ region: 'us-west-2', credentials }, { now: Date.now }),
  ]
  await Promise.all(Array.from({ length: size }, (_, i) => upstreams[i % 2]!.sign(request(), call)))
  return fetches
}

const runs = Number(process.argv[2] ?? 20_000)
const micros = await cpuPerSign(runs)
console.log(`SigV4 sign: ${micros.toFixed(1)} µs CPU per request (mean of ${runs}, 2 KB body)`)
console.log(
  `credential fetches for a burst of 200 signs across 2 upstreams: ${await fetchesPerBurst(200)}`,
)
