/**
 * For speed only: idempotency keys looked up in memory rather than through an index in the file
 * (record 0005). `(scope, key)` to the ids of the records that may be it, in typed arrays; the caller
 * checks each candidate against its row. Expired entries are forgotten.
 *
 * @internal
 */
/** The index: entries added in expiry order, forgotten from the earliest. */
export interface KeyIndex {
  /** Adds the record `petId` of `(scope, key)`, which counts until `expiresAt`. */
  readonly add: (scope: string, key: string, petId: number, expiresAt: number) => void
  /** The first defined answer of `read` for the ids under `(scope, key)` (and a few sharing its hash). */
  readonly find: <A>(scope: string, key: string, read: (petId: number) => A | undefined) => A | undefined
  /** Forgets at most `limit` entries that expired at `now`, the earliest added first; answers how many. */
  readonly forgetExpired: (now: number, limit: number) => number
  /** How many entries it holds. */
  readonly size: () => number
}

const empty = 0
const removed = -1
const minCapacity = 1024

/** The 32-bit hash of an entry's scope and key. */
export type Hash = (scope: string, key: string) => number

/** FNV-1a of `scope`, a separator and `key`, from `seed` (random unless given), with Murmur3's final mix. */
export const seededHash = (seed: number = (Math.random() * 0x100000000) >>> 0): Hash => (scope, key) => {
  let hash = seed
  for (let i = 0; i < scope.length; i++) hash = Math.imul(hash ^ scope.charCodeAt(i), 0x01000193)
  hash = Math.imul(hash ^ 0xffff, 0x01000193)
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
  return (hash ^ (hash >>> 16)) >>> 0
}

/** An empty index; tests give a `hash` that makes keys collide. */
export const make = (hashOf: Hash = seededHash()): KeyIndex => {
  // Open addressing, linear probing, at most half full: an id of 0 is an empty slot, -1 a removed one.
  let hashes = new Uint32Array(minCapacity)
  let ids = new Float64Array(minCapacity)
  let live = 0
  let used = 0
  // `[hash, id, expiresAt]` of each entry in the order added, from `head` to `tail`.
  let queue = new Float64Array(3 * minCapacity)
  let head = 0
  let tail = 0

  const place = (hash: number, id: number): void => {
    const mask = ids.length - 1
    let slot = hash & mask
    while (ids[slot] !== empty) slot = (slot + 1) & mask
    hashes[slot] = hash
    ids[slot] = id
  }

  /** A table sized for `live` entries (a quarter full), without the removed ones. */
  const rebuild = (): void => {
    const [oldHashes, oldIds] = [hashes, ids]
    let capacity = minCapacity
    while (capacity < live * 4) capacity *= 2
    hashes = new Uint32Array(capacity)
    ids = new Float64Array(capacity)
    for (let slot = 0; slot < oldIds.length; slot++) {
      if (oldIds[slot]! > 0) place(oldHashes[slot]!, oldIds[slot]!)
    }
    used = live
  }

  const enqueue = (hash: number, id: number, expiresAt: number): void => {
    if (tail === queue.length) {
      const next = (tail - head) * 2 > queue.length ? new Float64Array(queue.length * 2) : queue
      next.set(queue.subarray(head, tail))
      queue = next
      tail -= head
      head = 0
    }
    queue[tail++] = hash
    queue[tail++] = id
    queue[tail++] = expiresAt
  }

  /** The slots holding an entry of `hash`, until `visit` answers. */
  const probe = <A>(hash: number, visit: (slot: number) => A | undefined): A | undefined => {
    const mask = ids.length - 1
    for (let slot = hash & mask; ids[slot] !== empty; slot = (slot + 1) & mask) {
      if (ids[slot]! > 0 && hashes[slot] === hash) {
        const found = visit(slot)
        if (found !== undefined) return found
      }
    }
    return undefined
  }

  return {
    add: (scope, key, petId, expiresAt) => {
      if ((used + 1) * 2 > ids.length) rebuild()
      const hash = hashOf(scope, key) >>> 0
      place(hash, petId)
      live++
      used++
      enqueue(hash, petId, expiresAt)
    },
    find: (scope, key, read) => probe(hashOf(scope, key) >>> 0, (slot) => read(ids[slot]!)),
    forgetExpired: (now, limit) => {
      let forgotten = 0
      for (; forgotten < limit && head < tail && queue[head + 2]! <= now; forgotten++, head += 3) {
        const id = queue[head + 1]!
        probe(queue[head]!, (slot) => {
          if (ids[slot] !== id) return undefined
          ids[slot] = removed
          return true
        })
      }
      live -= forgotten
      return forgotten
    },
    size: () => live
  }
}
