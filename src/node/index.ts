/**
 * model-gateway/node: the Node `http` and Express bridge. The only entry point that imports
 * `node:` modules.
 *
 * @module
 */
export { toNodeHandler } from './to-node-handler'
export type { MountedHandler, NodeHandler } from './to-node-handler'
export { serveGateway } from './serve'
export type { ServeOptions, ServedGateway } from './serve'
export { createNodeFetch } from './node-fetch'
export { nodeHashKey } from './node-hash-key'
export type { NodeFetchOptions } from './node-fetch'
export { connectState, createGatewayWithState, readStateConfig } from './state'
export type { ConnectedState, ConnectStateOptions } from './state'
