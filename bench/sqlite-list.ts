/**
 * Cost of listing animals with a status filter after a cursor on the SQLite
 * store, at 10,000 and 1,000,000 animals (see packages/sqlite-store/bench/list.ts).
 *
 *   node --import tsx bench/sqlite-list.ts
 */
import { main } from "../packages/sqlite-store/bench/list.js"

await main()
