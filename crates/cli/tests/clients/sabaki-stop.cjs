// Sabaki's GTP library (`@sabaki/gtp`, found through NODE_PATH) drives `tesuji gtp` as Sabaki does: a few
// commands, then `controller.stop()`, which sends `quit` with the engine's input left open and resolves only
// when the process exits (it clears its own kill timer once `quit` is answered). Prints one JSON line: the
// answers, how `stop()` ended and how long it took, and whether the process is still there.
// Usage: node sabaki-stop.cjs TESUJI-BINARY [GTP-ARGS...]
const {Controller} = require('@sabaki/gtp')

const [binary, ...args] = process.argv.slice(2)

async function main() {
  const controller = new Controller(binary, ['gtp', ...args])
  controller.start()
  const pid = controller.process.pid
  const answers = {}
  for (const [name, commandArgs] of [
    ['name', []],
    ['version', []],
    ['boardsize', ['9']],
    ['play', ['B', 'E5']],
    ['genmove', ['W']],
  ]) {
    const response = await controller.sendCommand({name, args: commandArgs})
    answers[name] = {error: response.error, content: response.content}
  }
  const began = Date.now()
  const limit = new Promise((resolve) => setTimeout(() => resolve('not resolved'), 10000))
  const stopped = await Promise.race([controller.stop(), limit])
  const ms = Date.now() - began
  let running = true
  try {
    process.kill(pid, 0)
  } catch (e) {
    running = false
  }
  if (running) process.kill(pid, 'SIGKILL')
  console.log(JSON.stringify({answers, stopped, ms, running}))
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  },
)
