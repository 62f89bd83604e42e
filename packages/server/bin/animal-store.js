#!/usr/bin/env node
// The `animal-store` executable: the bundle that `pnpm run build` writes to dist/cli. This file
// is in the sources, so that installing the workspace links the command before anything is built.
import "../dist/cli/animal-store.js"
