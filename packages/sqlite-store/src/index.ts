/**
 * @since 1.0.0
 */
export * as SqliteMigrations from "./SqliteMigrations.js"
export * as SqliteStore from "./SqliteStore.js"
