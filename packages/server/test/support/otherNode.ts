/**
 * A Node.js of another major version than the one running the tests (24, or
 * 22 on Node 24): its native modules' ABI (`NODE_MODULE_VERSION`) differs.
 * Taken from the npm registry (`node-<platform>-<arch>@<major>`) once, kept
 * under `node_modules/.cache`.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../..")

const exec = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<string>((resolve, reject) =>
    ChildProcess.execFile(command, args, { cwd, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stderr}`))
    )
  )

/** The path of the other Node's executable, installed when missing. */
export const otherNode = async (): Promise<string> => {
  const major = process.versions.node.startsWith("24.") ? 22 : 24
  const name = `node-${process.platform}-${process.arch}`
  const dir = Path.join(root, "node_modules/.cache/animal-store-test", `${name}-${major}`)
  const node = Path.join(dir, "package/bin/node")
  if (Fs.existsSync(node)) return node
  Fs.mkdirSync(Path.dirname(dir), { recursive: true })
  const scratch = Fs.mkdtempSync(`${dir}-`)
  try {
    const tarball = (await exec("npm", ["pack", `${name}@${major}`, "--loglevel=error"], scratch)).trim().split("\n").at(-1)!
    await exec("tar", ["xzf", tarball], scratch)
    Fs.rmSync(Path.join(scratch, tarball))
    Fs.renameSync(scratch, dir)
  } catch (error) {
    Fs.rmSync(scratch, { recursive: true, force: true })
    if (!Fs.existsSync(node)) throw error
  }
  return node
}
