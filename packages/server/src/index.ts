/**
 * @since 1.0.0
 */
export * as AdminApi from "./AdminApi.js"
export * as Cli from "./Cli.js"
export * as KeyProvisioning from "./KeyProvisioning.js"
export * as StandaloneServer from "./StandaloneServer.js"
export * as StoreLocation from "./StoreLocation.js"
export * as Supervisor from "./Supervisor.js"
