/**
 * model-gateway/node: the Node `http` and Express bridge. The only entry point that imports
 * `node:` modules.
 *
 * @module
 */
export { toNodeHandler } from './transport/to-node-handler'
export type { MountedHandler, NodeHandler } from './transport/to-node-handler'
export { serveGateway } from './transport/serve'
export type { ServeOptions, ServedGateway } from './transport/serve'
export { createNodeFetch } from './transport/node-fetch'
export { nodeHashKey } from './transport/node-hash-key'
export { nodeCloudCredentials } from './cloud-credentials'
export type { NodeCloudCredentialsOptions } from './cloud-credentials'
export { googleDefaultCredentials } from './google/application-default'
export type { GoogleDefaultCredentialsOptions } from './google/application-default'
export type { NodeFetchOptions } from './transport/node-fetch'
export { connectState, createGatewayWithState, readStateConfig } from './cli/state'
export type { ConnectedState, ConnectStateOptions } from './cli/state'
export { connectRedis } from './cli/redis-connection'
export { createStdioTransports, type StdioTransportsOptions } from './mcp/stdio-server'
export type { ConnectRedisOptions } from './cli/redis-connection'
export type { RedisConnection, RedisTarget, RedisTopology } from './cli/redis-topology'
export type { GatewayHealthWithState, StateHealth } from './cli/state-health'
export { azureManagedIdentity } from './azure/managed-identity'
export type { AzureManagedIdentityOptions } from './azure/managed-identity'
export { nodeAwsCredentials } from './aws/aws-chain'
export type { NodeAwsCredentialsOptions } from './aws/aws-chain'
