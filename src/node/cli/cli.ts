#!/usr/bin/env node
import { resolve } from 'node:path'
import { GatewayConfigError } from '../../config/parse-config'
import type { GatewayConfig } from '../../config/schema'
import { parseCliArgs, usage } from './cli-args'
import { UsageError } from './cli-database'
import { runKeys } from './cli-keys'
import { runMigrate } from './cli-migrate'
import { runTeams } from './cli-teams'
import { runOrgUsage } from './cli-usage'
import { createNodeFetch } from '../transport/node-fetch'
import { nodeCloudCredentials } from '../cloud-credentials'
import { createLineBatch } from './line-batch'
import { formatBudgetAlert, formatRequestLog } from './request-log'
import { serveGateway } from '../transport/serve'
import type { MountedHandler } from '../transport/to-node-handler'
import { createGatewayWithState, readStateConfig } from './state'
import { packageVersion } from './package-version'
import { startSummary } from './start-summary'
import { demoBanner } from './demo-banner'
import { readConfigFile } from './read-config-file'
import { buildConsole, consoleParts, planConsole, type ConsolePlan } from './cli-console'
import type { ConsoleHandler } from '../../console/create-console'
import { mountRoutes, planMetrics, routePaths } from './cli-routes'
import { createHome } from './cli-home'

/** The database commands, by name. */
const commands = new Map([
  ['migrate', runMigrate],
  ['keys', runKeys],
  ['teams', runTeams],
  ['usage', runOrgUsage],
])

/** The CLI: `model-gateway migrate …`, `keys …`, `teams …`, `usage …`, or serving a config. */
async function main(argv: readonly string[]): Promise<number> {
  const name = argv[0] ?? ''
  const run = commands.get(name)
  if (run !== undefined) {
    try {
      return await run(argv.slice(1))
    } catch (error) {
      if (isCommandLineError(error)) {
        // The reason and where the options are: the whole usage would bury the reason.
        console.error(
          `model-gateway: ${(error as Error).message}\nSee "model-gateway ${name} --help" for the options.`,
        )
        return 2
      }
      console.error(`model-gateway: ${(error as Error).message}`)
      return 1
    }
  }
  return serve(argv)
}

/** `model-gateway --config <file.json> [--port 8787] [--host 127.0.0.1]`: validate, serve, print. */
async function serve(argv: readonly string[]): Promise<number> {
  let args: ReturnType<typeof parseCliArgs>
  try {
    args = parseCliArgs(argv)
  } catch (error) {
    console.error(`model-gateway: ${(error as Error).message}\n\n${usage}`)
    return 2
  }
  if (args === 'help') {
    console.log(usage)
    return 0
  }
  if (args === 'version') {
    console.log(packageVersion())
    return 0
  }
  const path = resolve(args.config)
  let config: unknown
  try {
    config = await readConfigFile(path)
  } catch (error) {
    console.error(`model-gateway: ${(error as Error).message}`)
    return 1
  }
  const env = (config as { env?: Record<string, unknown> }).env ?? process.env
  // One write per event-loop turn for the request log; flushed before every other line and on exit.
  const log = createLineBatch((text) => process.stdout.write(text))
  process.on('exit', log.flush)
  let consolePlan: ConsolePlan | undefined
  let gateway
  let consoleHandler: ConsoleHandler | undefined
  let routes: MountedHandler | undefined
  try {
    consolePlan = planConsole(config as object, env, args.printDemo)
    const metrics = planMetrics(config as object)
    gateway = await createGatewayWithState(
      {
        ...(config as object),
        ...consoleParts(consolePlan),
        // node:http relays with about a third less CPU per request than the global fetch
        // (docs/decisions/0002-node-upstream-transport.md).
        fetch: createNodeFetch(),
        // An upstream that names no credentials uses the cloud's standard chain on this machine.
        cloudCredentials: nodeCloudCredentials(),
        onEvent: (event) => {
          log.write(formatRequestLog(event))
          metrics?.record(event)
        },
        onBudgetAlert: (alert) => log.write(formatBudgetAlert(alert)),
      } as GatewayConfig,
      { migrate: !args.noMigrate },
    )
    if (consolePlan !== undefined) consoleHandler = buildConsole(gateway, consolePlan)
    routes = mountRoutes(
      gateway,
      consoleHandler,
      metrics,
      createHome(
        packageVersion(),
        consoleHandler?.path,
        (config as { basePath?: unknown }).basePath as string | undefined,
      ),
    )
  } catch (error) {
    if (error instanceof GatewayConfigError) {
      console.error(`model-gateway: ${path}\n${error.message}`)
      return 1
    }
    console.error(`model-gateway: ${(error as Error).message}`)
    return 1
  }
  for (const step of gateway.state.migration?.applied ?? []) {
    console.log(`model-gateway: applied schema migration ${step.version}: ${step.name}`)
  }
  const summary = startSummary({
    version: packageVersion(),
    configPath: path,
    config,
    env,
    stateConfig: readStateConfig((config as { state?: unknown }).state, env),
    state: gateway.state,
  })
  for (const line of summary.lines) console.log(line)
  for (const warning of summary.warnings) console.error(`model-gateway: ${warning}`)
  let served: Awaited<ReturnType<typeof serveGateway>>
  try {
    served = await serveGateway(gateway, { port: args.port, host: args.host, console: routes })
  } catch (error) {
    // A busy or forbidden port is the likeliest start failure: one line saying what to change,
    // not the listen error's stack.
    console.error(`model-gateway: ${listenFailure(error, args.host, args.port)}`)
    await gateway.close()
    return 1
  }
  let stopping = false
  const stop = (signal: string) => {
    // A second signal means "now": exit without waiting for the drain.
    if (stopping) process.exit(1)
    stopping = true
    const ledger = gateway.state.usageLedger
    log.flush()
    console.log(
      `model-gateway: ${signal}, shutting down${ledger === undefined ? '' : `; writing ${ledger.stats().queued} queued usage records`}`,
    )
    void served.close().then(
      () => {
        // The lines of the requests the shutdown ended, before the last line.
        log.flush()
        const stats = ledger?.stats()
        if (stats !== undefined) {
          console.log(
            `model-gateway: stopped; usage ledger wrote ${stats.written} rows, lost ${stats.lost}, dropped ${stats.dropped}`,
          )
        }
        process.exit(stats !== undefined && stats.lost > 0 ? 1 : 0)
      },
      (error: unknown) => {
        console.error('model-gateway: shutdown failed:', error)
        process.exit(1)
      },
    )
  }
  // Before the address is printed: whoever reads it may signal at once.
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  console.log(`model-gateway listening on ${served.url}`)
  for (const path of routePaths(gateway)) console.log(`model-gateway serves ${served.url}${path}`)
  if (consoleHandler !== undefined) {
    console.log(`model-gateway console on ${served.url}${consoleHandler.path}/`)
  }
  if (args.printDemo) console.log(demoBanner(config, served.url, consolePlan?.demoToken))
  return -1
}

/** One line for a failed listen: the address, why, and the flag that changes it. */
function listenFailure(error: unknown, host: string, port: number): string {
  const code = (error as { code?: unknown } | null)?.code
  const where = `${host}:${port}`
  if (code === 'EADDRINUSE') {
    return `port ${port} is already in use on ${host}; choose another with --port <n> (npm start -- --port <n>).`
  }
  if (code === 'EACCES') {
    return `no permission to listen on ${where}; choose a port above 1023 with --port <n>.`
  }
  if (code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${where}: this machine has no address ${host}; choose another with --host.`
  }
  return `cannot listen on ${where}: ${(error as Error).message}`
}

/** A bad command line: our own `UsageError`, or one `node:util`'s `parseArgs` threw. */
function isCommandLineError(error: unknown): boolean {
  if (error instanceof UsageError) return true
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (error: unknown) => {
    console.error('model-gateway: failed to start:', error)
    process.exit(1)
  },
)
