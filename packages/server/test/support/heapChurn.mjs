/**
 * A process that loads its heap as a server under steady load does: in
 * steps of a few thousand objects, one turn of the event loop each, it builds
 * a retained set, then churns a rolling window of objects that live through a
 * few collections. With `on` as its argument, `HeapPolicy.apply` applies
 * from the start to the end of the churn. It prints the largest young and
 * old generation sizes seen, what the old generation kept after a full
 * collection, and the largest young generation seen in a second churn after
 * the layer was released.
 * Plain JavaScript on the built module, which imports only Node's own
 * modules, so that nothing large is loaded before the policy applies.
 */
import * as V8 from "node:v8"
import * as HeapPolicy from "../../dist/internal/heapPolicy.js"

const spaceSize = (name) => V8.getHeapSpaceStatistics().find((space) => space.space_name === name)?.space_size ?? 0

/** Stores `count` new objects into `into`, round the array, in steps of one turn each; notes the largest sizes. */
const fill = (into, count, seen) =>
  new Promise((done) => {
    let i = 0
    const step = () => {
      for (let k = 0; k < 5_000 && i < count; k++, i++) into[i % into.length] = { values: [i, i + 1], text: `item ${i}` }
      seen.young = Math.max(seen.young, spaceSize("new_space"))
      seen.old = Math.max(seen.old, spaceSize("old_space"))
      if (i < count) setImmediate(step)
      else done()
    }
    step()
  })

const release = process.argv[2] === "on" ? HeapPolicy.apply() : () => {}
const under = { young: 0, old: 0 }
const retained = new Array(200_000)
await fill(retained, retained.length, under)
const window = new Array(150_000)
await fill(window, 4_000_000, under)
globalThis.gc()
const keptOld = V8.getHeapSpaceStatistics().find((space) => space.space_name === "old_space")?.space_used_size ?? 0
release()
const after = { young: 0, old: 0 }
await fill(window, 2_000_000, after)
console.log(JSON.stringify({ maxYoung: under.young, maxOld: under.old, keptOld, youngAfterRelease: after.young, retained: retained.length }))
