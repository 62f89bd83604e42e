// better-sqlite3 ships no types: the benchmarks type what they use where they use it.
declare module "better-sqlite3" {
  const Database: unknown
  export default Database
}
