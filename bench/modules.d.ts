// better-sqlite3 and autocannon ship no types: the benchmarks type what they use where they use it.
declare module "better-sqlite3" {
  const Database: unknown
  export default Database
}
declare module "autocannon" {
  const autocannon: unknown
  export default autocannon
}
