// better-sqlite3 ships no types (a devDependency of the workspace root): the tests type what they use.
declare module "better-sqlite3" {
  interface Statement {
    get(...parameters: ReadonlyArray<unknown>): unknown
    run(...parameters: ReadonlyArray<unknown>): unknown
  }
  class Database {
    constructor(filename: string, options?: { readonly readonly?: boolean; readonly fileMustExist?: boolean })
    prepare(sql: string): Statement
    close(): void
  }
  export default Database
}
