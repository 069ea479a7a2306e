import { createGateway, GatewayConfigError, type GatewayConfig } from '../../src/index'

/** The `GatewayConfigError` that `createGateway` throws for `config`; fails if it accepts it. */
export function configError(config: unknown): GatewayConfigError {
  try {
    createGateway(config as GatewayConfig)
  } catch (error) {
    if (error instanceof GatewayConfigError) return error
    throw error
  }
  throw new Error('The config was accepted.')
}
