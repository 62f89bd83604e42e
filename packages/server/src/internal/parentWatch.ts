/**
 * `serve` started by a package runner (npx, `npm exec`, a script) stops when
 * the runner is gone, as on SIGTERM (record 0051).
 *
 * @internal
 */

/** Whether the environment is a package runner's (each sets these for the command it runs). @internal */
export const underPackageRunner = (env: NodeJS.ProcessEnv): boolean =>
  env.npm_lifecycle_event !== undefined || env.npm_command !== undefined

/** How often the parent is looked at. @internal */
export const interval = 500

/**
 * Calls `gone` once when this process's parent has exited (it was reparented);
 * the returned function stops watching. @internal
 */
export const watch = (gone: (parent: number) => void): () => void => {
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    gone(parent)
  }, interval)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Under a package runner, raises SIGTERM on this process once the runner is
 * gone; elsewhere, nothing. @internal
 */
export const stopWithPackageRunner = (env: NodeJS.ProcessEnv = process.env): void => {
  if (!underPackageRunner(env)) return
  watch((parent) => {
    const line = {
      message: "the package runner that started the server exited: shutting down",
      logLevel: "INFO",
      timestamp: new Date().toISOString(),
      annotations: { parentPid: parent }
    }
    process.stdout.write(`${JSON.stringify(line)}\n`, () => process.kill(process.pid, "SIGTERM"))
  })
}
