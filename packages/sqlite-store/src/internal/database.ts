/**
 * How the store's ports run their statements: a write is one short `BEGIN IMMEDIATE` transaction in
 * the caller's turn on the store's own driver connection, retried off the event loop while another
 * connection holds the lock (record 0003); reads see committed data. Inside the caller's `SqlClient`
 * transaction, and on a private in-memory database, calls run on the client's connection instead.
 * For speed (record 0068): the held writes of a turn of the event loop share one transaction,
 * committed after the turn; their callers deliver once `delivery` says it is durable. A held row
 * (record 0071) is read once a turn and written once, before that commit; a held key lookup opens the
 * turn, its read lock then shared with the count that follows (record 0075).
 *
 * @internal
 */
import { Delivery, StoreError } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type { Scope } from "effect"
import { Cause, Clock, Context, Duration, Effect, Exit, Option, Schedule } from "effect"
import * as Driver from "./driver.js"
import * as FileGuard from "./fileGuard.js"
import * as LockWaits from "./lockWaits.js"
import * as Statements from "./statements.js"
import { fromCause, mapStoreError } from "./storeError.js"

export type { Parameter, RunResult, Statements } from "./statements.js"

/**
 * A row that held writes of a turn change in memory: read at its first change in the turn (the
 * turn's transaction holds the write lock), written once before the turn commits.
 */
export interface HeldRow<S> {
  /** Which row: one entry a turn for each. */
  readonly key: string
  readonly read: (statements: Statements.Statements) => S
  readonly write: (statements: Statements.Statements, state: S) => void
}

/** @internal */
export interface Database {
  /** Runs `f`, which reads: in the caller's `SqlClient` transaction on this client, in it; else on committed data. */
  readonly read: <A>(doing: string, f: (statements: Statements.Statements) => A) => Effect.Effect<A, StoreError.StoreError>
  /** Whether the caller runs in its own `SqlClient` transaction on this client. */
  readonly inTransaction: Effect.Effect<boolean>
  /**
   * Runs `f` in a transaction of its own, committed before the call
   * completes; rolled back, with nothing of it kept, when `f` throws or the
   * commit fails. In the caller's `SqlClient` transaction on this client,
   * runs in a savepoint of it (its commit is the caller's). A throw that is
   * not SQLite's is a defect of the call.
   */
  readonly write: <A>(doing: string, f: (statements: Statements.Statements) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * As `write`; when the caller's fiber is `Delivery.held`, it completes
   * before its transaction commits: the caller delivers once `delivery` says
   * the write is durable.
   */
  readonly writeHeld: <A>(doing: string, f: (statements: Statements.Statements) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * Changes `row` by `f` (the value it returns, and the row's next state), as `writeHeld` does; a held
   * caller changes the turn's copy, written before the turn's commit.
   */
  readonly modifyHeld: <S, A>(
    doing: string,
    row: HeldRow<S>,
    f: (state: S) => readonly [A, S]
  ) => Effect.Effect<A, StoreError.StoreError>
  /** Reads, as `read`; a held caller in the turn's transaction, opened now if it can be: its held writes follow. */
  readonly readBeforeWrites: <A>(doing: string, f: (statements: Statements.Statements) => A) => Effect.Effect<A, StoreError.StoreError>
  /** Reads, as `read`, once the held writes are committed: they may hold changed rows. */
  readonly readSettled: <A>(doing: string, f: (statements: Statements.Statements) => A) => Effect.Effect<A, StoreError.StoreError>
  /** When the held writes made so far are durable. */
  readonly delivery: Delivery.DeliveryService
}

/** `f` applied to `row` and written at once, in the caller's transaction. */
const modifyNow = <S, A>(row: HeldRow<S>, f: (state: S) => readonly [A, S]) => (statements: Statements.Statements): A => {
  const [result, next] = f(row.read(statements))
  row.write(statements, next)
  return result
}

/** @internal */
export const Database = Context.GenericTag<Database>("@animal-store/sqlite-store/internal/Database")

/** Whether `error`, thrown by a statement, is SQLite's (a failure) rather than a bug (a defect). */
const isSqlFailure = (error: unknown): boolean =>
  (error as { readonly _tag?: unknown } | undefined)?._tag === "SqlError" ||
  StoreError.codeAlongCauses(error, (code) => code.startsWith("SQLITE_")) !== undefined

const failure = (doing: string, error: unknown): Exit.Exit<never, StoreError.StoreError> =>
  isSqlFailure(error) ? Exit.fail(fromCause(doing, error)) : Exit.die(error)

const isBusy = (error: StoreError.StoreError): boolean =>
  StoreError.codeAlongCauses(error, (code) => code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) !==
    undefined

/** The value of a one-column pragma. */
const pragma = (client: SqliteClient.SqliteClient, name: string) =>
  Effect.map(client.unsafe<Record<string, unknown>>(`PRAGMA ${name}`), (rows) => Object.values(rows[0] ?? {})[0])

/** The clock waits for another connection's lock run on, whatever clock the caller's fiber has. */
const liveClock = Clock.make()

/**
 * The statements of `client` (migrated, opened by `client.ts`) and of a
 * driver connection of its file with the client's `synchronous` and WAL
 * checkpoint settings, closed with the scope.
 *
 * @internal
 */
export const make = (client: SqliteClient.SqliteClient): Effect.Effect<Database, StoreError.StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const own = yield* Effect.orDie(Effect.scoped(client.reserve))
    const onClient = Statements.ofConnection(own)
    const guard = FileGuard.forClient(client)
    const [file, synchronous, autocheckpoint, busyTimeout] = yield* Effect.all([
      Effect.map(client.unsafe<{ readonly name: string; readonly file: string }>("PRAGMA database_list"), (rows) =>
        rows.find((row) => row.name === "main")?.file ?? ""),
      pragma(client, "synchronous"),
      pragma(client, "wal_autocheckpoint"),
      pragma(client, "busy_timeout")
    ]).pipe(mapStoreError("Opening the SQLite database"))
    const driver = file === "" ? undefined : yield* Effect.acquireRelease(
      Effect.try({
        try: () => Driver.open(file, { synchronous: Number(synchronous), autocheckpoint: Number(autocheckpoint) }),
        catch: (cause) => fromCause(`Opening the SQLite database "${file}"`, cause, "Unavailable")
      }),
      (connection) => Effect.sync(() => connection.close())
    )

    /** The caller's transaction on this client, if any. */
    const inOwnTransaction = (fiber: { readonly currentContext: Context.Context<never> }): boolean => {
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      return Option.isSome(transaction) && transaction.value[0] === own
    }

    /** Retried while another connection holds the lock, until the busy timeout. */
    const lockWaits = Schedule.exponential(Duration.millis(1), 2).pipe(
      Schedule.either(Schedule.spaced(Duration.millis(4))),
      Schedule.jittered,
      Schedule.upTo(Duration.millis(Number(busyTimeout)))
    )
    const waitingForLocks = <A>(effect: Effect.Effect<A, StoreError.StoreError>): Effect.Effect<A, StoreError.StoreError> =>
      Effect.withClock(Effect.retry(effect, { while: isBusy, schedule: lockWaits }), liveClock)

    /** Reads on the client's connection: in the caller's transaction, or of an in-memory database. */
    const readOnClient = <A>(doing: string, f: (statements: Statements.Statements) => A) =>
      Effect.suspend(() => {
        try {
          return Effect.succeed(f(onClient))
        } catch (error) {
          return failure(doing, error)
        }
      })

    /** Writes on the client's connection: in the caller's transaction, or in a transaction of an in-memory database. */
    const onClientConnection = <A>(doing: string, f: (statements: Statements.Statements) => A) =>
      client.withTransaction(readOnClient(doing, f)).pipe(mapStoreError(doing))

    if (driver === undefined) {
      return Database.of({
        read: readOnClient,
        readBeforeWrites: readOnClient,
        inTransaction: Effect.withFiberRuntime((fiber) => Effect.succeed(inOwnTransaction(fiber))),
        write: onClientConnection,
        writeHeld: onClientConnection,
        modifyHeld: (doing, row, f) => onClientConnection(doing, modifyNow(row, f)),
        readSettled: readOnClient,
        delivery: Delivery.immediate
      })
    }

    LockWaits.declare()
    const onDriver = Statements.ofDriver(driver)
    const begin = driver.prepare("BEGIN IMMEDIATE")
    const commit = driver.prepare("COMMIT")
    const rollback = driver.prepare("ROLLBACK")
    const savepoint = driver.prepare("SAVEPOINT held")
    const release = driver.prepare("RELEASE held")
    const rollbackTo = driver.prepare("ROLLBACK TO held")

    /** The held writes' transaction open on the driver's connection: committed after the turn, or before any other use. */
    let turn: {
      /** Whether a held write was made: a turn of reads alone has nothing to acknowledge. */
      wrote: boolean
      readonly waiting: Array<(lost: StoreError.StoreError | undefined) => void>
      /** The held rows the turn changed: written before its commit. */
      readonly rows: Map<string, { readonly row: HeldRow<any>; state: unknown }>
    } | undefined

    /** Commits the held writes' transaction now; its callers learn whether their writes are durable. */
    const settle = (): void => {
      if (turn === undefined) return
      let lost = turn.wrote ? guard.beforeCommit() : undefined
      if (lost === undefined) {
        try {
          for (const { row, state } of turn.rows.values()) row.write(onDriver, state)
          commit.run()
          guard.committed()
        } catch (error) {
          lost = fromCause("Committing held writes", error, "Unavailable")
          guard.failed(lost)
        }
      }
      if (lost !== undefined && driver.inTransaction) {
        try {
          rollback.run()
        } catch {
          // SQLite rolled it back already.
        }
      }
      endTurn(lost)
    }

    /** The held writes' transaction is over: its callers learn whether their writes are durable (`lost`: not). */
    const endTurn = (lost: StoreError.StoreError | undefined): void => {
      const open = turn
      turn = undefined
      for (const deliver of open?.waiting ?? []) deliver(lost)
    }

    /** How a write that threw fails: a `StoreError` as it is, SQLite's error noted by the file guard, a bug a defect. */
    const writeFailure = (doing: string, error: unknown): Exit.Exit<never, StoreError.StoreError> => {
      if (error instanceof StoreError.StoreError) return Exit.fail(error)
      if (!isSqlFailure(error)) return Exit.die(error)
      const failed = fromCause(doing, error)
      guard.failed(failed)
      return Exit.fail(failed)
    }

    yield* Effect.addFinalizer(() => Effect.sync(settle))

    const delivery: Delivery.DeliveryService = {
      whenDurable: (deliver) => turn === undefined ? deliver(undefined) : void turn.waiting.push(deliver)
    }

    /** Writes on the client's connection, once the held writes are committed: it would wait for their lock. */
    const onClientAfterHeld = <A>(doing: string, f: (statements: Statements.Statements) => A) =>
      Effect.suspend(() => {
        settle()
        return onClientConnection(doing, f)
      })

    /** Runs `f` on the driver's connection now: its result, or the error it threw. */
    const readNow = <A>(
      doing: string,
      f: (statements: Statements.Statements) => A,
      held: boolean
    ): Exit.Exit<A, StoreError.StoreError> => {
      if (!held) settle()
      const refused = guard.beforeUse()
      if (refused !== undefined) return Exit.fail(refused)
      try {
        return Exit.succeed(f(onDriver))
      } catch (error) {
        return failure(doing, error)
      }
    }

    /** Runs `f` in a transaction on the driver's connection now, committed before it returns. */
    const writeNow = <A>(doing: string, f: (statements: Statements.Statements) => A): Exit.Exit<A, StoreError.StoreError> => {
      settle()
      const refused = guard.beforeUse()
      if (refused !== undefined) return Exit.fail(refused)
      try {
        begin.run()
      } catch (error) {
        return failure(doing, error)
      }
      let result: A
      try {
        result = f(onDriver)
        const changed = guard.beforeCommit() // the files must still be those opened: else nothing is acknowledged
        if (changed !== undefined) throw changed
        commit.run()
      } catch (error) {
        if (driver.inTransaction) {
          try {
            rollback.run()
          } catch {
            // SQLite rolled it back already (a full disk, an I/O error).
          }
        }
        return writeFailure(doing, error)
      }
      guard.committed()
      return Exit.succeed(result)
    }

    /** Opens the held writes' transaction when none is: the failure that refuses holding writes, if any. */
    const openTurn = (doing: string): Exit.Exit<never, StoreError.StoreError> | undefined => {
      const refused = guard.beforeUse()
      if (refused !== undefined) return Exit.fail(refused)
      if (turn !== undefined) return undefined
      // The files must be those opened, with room, before writes are held for them.
      const fault = guard.beforeHolding()
      if (fault !== undefined) return Exit.fail(fault)
      try {
        begin.run()
      } catch (error) {
        return failure(doing, error)
      }
      turn = { wrote: false, waiting: [], rows: new Map() }
      setImmediate(settle)
      return undefined
    }

    /** Runs `f` in the held writes' transaction, in a savepoint of its own. */
    const writeInTurn = <A>(doing: string, f: (statements: Statements.Statements) => A): Exit.Exit<A, StoreError.StoreError> => {
      const refused = openTurn(doing)
      if (refused !== undefined) return refused
      turn!.wrote = true
      try {
        savepoint.run()
        const result = f(onDriver)
        release.run()
        return Exit.succeed(result)
      } catch (error) {
        if (driver.inTransaction) {
          try {
            rollbackTo.run()
            release.run()
          } catch {
            // Rolled back with the whole transaction: the next lines see it.
          }
        }
        // SQLite rolled back the whole transaction (a full disk, an I/O error): the turn's writes are lost.
        if (!driver.inTransaction) endTurn(fromCause(doing, error, "Unavailable"))
        return writeFailure(doing, error)
      }
    }

    /** Changes the turn's copy of `row` by `f` (read in the turn's transaction at its first change). */
    const modifyInTurn = <S, A>(
      doing: string,
      row: HeldRow<S>,
      f: (state: S) => readonly [A, S]
    ): Exit.Exit<A, StoreError.StoreError> => {
      const refused = openTurn(doing)
      if (refused !== undefined) return refused
      turn!.wrote = true
      const rows = turn!.rows
      const held = rows.get(row.key)
      let state: S
      try {
        state = held === undefined ? row.read(onDriver) : held.state as S
      } catch (error) {
        return writeFailure(doing, error)
      }
      let changed: readonly [A, S]
      try {
        changed = f(state)
      } catch (error) {
        return Exit.die(error)
      }
      if (held === undefined) rows.set(row.key, { row, state: changed[1] })
      else held.state = changed[1]
      return Exit.succeed(changed[0])
    }

    /**
     * A write of the caller's: in its own transaction on the client, held in the turn's transaction
     * (`inTurn`) for a held caller, else committed at once on the driver's connection.
     */
    const byCaller = <A>(
      doing: string,
      f: (statements: Statements.Statements) => A,
      inTurn: () => Exit.Exit<A, StoreError.StoreError>
    ): Effect.Effect<A, StoreError.StoreError> =>
      Effect.withFiberRuntime((fiber) =>
        inOwnTransaction(fiber)
          ? onClientAfterHeld(doing, f)
          : fiber.getFiberRef(Delivery.held)
          ? now(inTurn)
          : now(() => writeNow(doing, f))
      )

    /** Runs `attempt` now; while another connection holds the lock, again off the event loop. */
    const now = <A>(attempt: () => Exit.Exit<A, StoreError.StoreError>): Effect.Effect<A, StoreError.StoreError> => {
      const first = attempt()
      if (!(Exit.isFailure(first) && Cause.isFailType(first.cause) && isBusy(first.cause.error))) return first
      const refusedAt = performance.now()
      return Effect.ensuring(
        waitingForLocks(Effect.suspend(attempt)),
        Effect.sync(() => LockWaits.record(performance.now() - refusedAt))
      )
    }

    /** Reads: `held` (not `settled`) without the held writes' commit, `inTurn` in their transaction when it can be opened now. */
    const read = (how: "settled" | "held" | "inTurn") => <A>(doing: string, f: (statements: Statements.Statements) => A) =>
      Effect.withFiberRuntime<A, StoreError.StoreError>((fiber) =>
        inOwnTransaction(fiber) ? readOnClient(doing, f) : now(() =>
          readNow(doing, f, how !== "settled" && fiber.getFiberRef(Delivery.held) && (how === "held" || openTurn(doing) === undefined))
        )
      )

    return Database.of({
      read: read("held"),
      readBeforeWrites: read("inTurn"),
      inTransaction: Effect.withFiberRuntime((fiber) => Effect.succeed(inOwnTransaction(fiber))),
      write: (doing, f) =>
        Effect.withFiberRuntime((fiber) => inOwnTransaction(fiber) ? onClientAfterHeld(doing, f) : now(() => writeNow(doing, f))),
      writeHeld: (doing, f) => byCaller(doing, f, () => writeInTurn(doing, f)),
      modifyHeld: (doing, row, f) => byCaller(doing, modifyNow(row, f), () => modifyInTurn(doing, row, f)),
      readSettled: read("settled"),
      delivery
    })
  })
