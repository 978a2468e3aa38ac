/**
 * The ports: what the use cases (lambda/use-cases/, and the CLI's `watch`) need from the world
 * outside, declared in this one folder, a file a port. The adapters (lambda/adapters/) implement
 * them and the composition roots (lambda/handler/create-handler.ts, cli/compose.ts) wire them.
 * Use cases import this module, the core and the settings; never an adapter.
 */

export * from './cluster-access.js';
export type { ClusterDirectory } from './cluster-directory.js';
export * from './cluster-finder.js';
export * from './cluster-reader.js';
export * from './discovery-store.js';
export * from './dispatch.js';
export * from './evidence.js';
export * from './looks.js';
export * from './notifier.js';
export * from './on-call.js';
export * from './silence-store.js';
export * from './state-store.js';
export * from './telemetry.js';
export * from './topic-subscriptions.js';
