import { randomBytes } from 'node:crypto'
import { createConsole, type ConsoleHandler } from '../../console/create-console'
import { createMemoryKeyAdmin, type MemoryKeyAdmin } from '../../console/memory-key-admin'
import type { GatewayHandler } from '../../gateway'
import { createMemoryUsageLedger, type MemoryUsageLedger } from '../../usage/memory-usage-ledger'
import type { ConnectedState } from './state'

/** The variable the demo config's `console.adminTokens` reads. */
const demoTokenVariable = 'CONSOLE_ADMIN_TOKEN'

/** What the CLI adds to a config with a `console` section, before the gateway is built. */
export type ConsolePlan = {
  /** Without `state.postgres`: console-created keys and a usage rollup, in this process. */
  memory?: { keys: MemoryKeyAdmin; ledger: MemoryUsageLedger }
  /** The admin token `--print-demo` made up because `${CONSOLE_ADMIN_TOKEN}` was not set. */
  demoToken?: string
}

/**
 * Prepares the console of a config that has a `console` section. With `--print-demo` and
 * `${CONSOLE_ADMIN_TOKEN}` unset, a random admin token is made (and printed by the demo banner),
 * so that `npm start` signs in with no setup (an empty variable counts as unset). Without a database, keys created in the console
 * and the usage history live in this process.
 */
export function planConsole(
  config: { console?: unknown; state?: { postgres?: unknown } },
  env: Record<string, unknown>,
  printDemo: boolean,
): ConsolePlan | undefined {
  if (config.console === undefined) return undefined
  const plan: ConsolePlan = {}
  const tokens = JSON.stringify((config.console as { adminTokens?: unknown }).adminTokens ?? [])
  const unset = env[demoTokenVariable] === undefined || env[demoTokenVariable] === ''
  if (printDemo && unset && tokens.includes(`\${${demoTokenVariable}}`)) {
    plan.demoToken = `mgc-demo-${randomBytes(18).toString('base64url')}`
    env[demoTokenVariable] = plan.demoToken
  }
  if (config.state?.postgres === undefined) {
    plan.memory = { keys: createMemoryKeyAdmin(), ledger: createMemoryUsageLedger() }
  }
  return plan
}

/** The config's parts a memory console needs: its keys beside the config's, its ledger. */
export function consoleParts(plan: ConsolePlan | undefined) {
  if (plan?.memory === undefined) return {}
  return { keyStore: plan.memory.keys, usageLedger: plan.memory.ledger }
}

/** The console over the served gateway: its database when it has one, else this process. */
export function buildConsole(
  gateway: GatewayHandler & { state: ConnectedState },
  plan: ConsolePlan,
): ConsoleHandler {
  const postgres = gateway.state.postgres
  return createConsole(gateway, postgres === undefined ? { keys: plan.memory?.keys } : { postgres })
}
