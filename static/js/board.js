/* A chess board viewer for one game's PGN (templates/results/_board.html renders its markup).
 *
 * Every element with `data-pgn-viewer` is one viewer. It reads the game score from its own
 * `data-pgn` attribute (HTML-escaped by the template, so any PGN is safe there) and the piece
 * sprite's URL from `data-pieces`. Inside it the template puts, hidden until this script fills
 * them: `[data-board]`, `[data-controls]` (buttons with `data-go="first|back|forward|last"`),
 * `[data-moves]`, `[data-status]` (`data-start` is its text at the start position) and
 * `[data-error]`; `[data-source]` is the raw PGN in a <pre>, what a reader sees without
 * JavaScript. The viewer starts at the initial position; ←/→ step, Home/End jump, while the
 * viewer has focus; clicking a move jumps to it. A PGN chess.js cannot read shows `[data-error]`
 * and keeps the raw PGN visible.
 *
 * cm-chessboard and chess.js come from npm: `make vendor` copies them into static/vendor/.
 */
import { Chessboard } from "../vendor/cm-chessboard/src/Chessboard.js"
import { Chess } from "../vendor/chess.js/chess.js"

const KEYS = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }

function readGame(pgn) {
  const chess = new Chess()
  chess.loadPgn(pgn) // throws on a score it cannot read
  const moves = chess.history({ verbose: true })
  if (moves.length === 0) throw new Error("no moves")
  return moves
}

// "12." before White's move, "12…" before Black's (the full-move number of the FEN before it).
const numbered = (move) => move.before.split(" ")[5] + (move.color === "w" ? "." : "…")

function moveList(list, moves) {
  const buttons = []
  let item = null
  moves.forEach((move, index) => {
    if (move.color === "w" || item === null) {
      item = document.createElement("li")
      const label = document.createElement("span")
      label.className = "pgn-move-number"
      label.textContent = numbered(move)
      item.append(label)
      list.append(item)
    }
    const button = document.createElement("button")
    button.type = "button"
    button.className = "pgn-move"
    button.dataset.ply = String(index + 1)
    button.textContent = move.san
    item.append(" ", button)
    buttons.push(button)
  })
  return buttons
}

// Scrolls the move list (not the page) so that the current move shows.
function keepInView(list, button) {
  const top = button.offsetTop - list.offsetTop
  if (top < list.scrollTop) list.scrollTop = top
  else if (top + button.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + button.offsetHeight - list.clientHeight
  }
}

function setUp(viewer) {
  const part = (name) => viewer.querySelector(`[data-${name}]`)
  let moves
  try {
    moves = readGame(viewer.dataset.pgn || "")
  } catch {
    part("error").hidden = false
    return
  }
  const boardElement = part("board")
  const controls = part("controls")
  const list = part("moves")
  const status = part("status")
  for (const element of [boardElement, controls, list, status]) element.hidden = false
  part("source").hidden = true

  const fens = [moves[0].before, ...moves.map((move) => move.after)]
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
  const board = new Chessboard(boardElement, {
    position: fens[0],
    style: { pieces: { file: viewer.dataset.pieces }, animationDuration: still ? 0 : 200 },
  })
  const buttons = moveList(list, moves)
  const go = {}
  for (const button of controls.querySelectorAll("[data-go]")) go[button.dataset.go] = button
  let ply = 0

  function show(target) {
    ply = Math.max(0, Math.min(fens.length - 1, target))
    board.setPosition(fens[ply], !still)
    buttons.forEach((button, index) => {
      const current = index + 1 === ply
      button.classList.toggle("current", current)
      if (current) button.setAttribute("aria-current", "true")
      else button.removeAttribute("aria-current")
    })
    if (ply > 0) keepInView(list, buttons[ply - 1])
    go.first.disabled = go.back.disabled = ply === 0
    go.forward.disabled = go.last.disabled = ply === fens.length - 1
    const move = moves[ply - 1]
    status.textContent = ply === 0 ? status.dataset.start : `${numbered(move)} ${move.san}`
    viewer.dataset.ply = String(ply)
  }

  const step = { first: () => 0, back: () => ply - 1, forward: () => ply + 1, last: () => Infinity }
  controls.addEventListener("click", (event) => {
    const button = event.target.closest("[data-go]")
    if (button) show(step[button.dataset.go]())
  })
  list.addEventListener("click", (event) => {
    const button = event.target.closest("[data-ply]")
    if (button) show(Number(button.dataset.ply))
  })
  viewer.tabIndex = 0
  viewer.addEventListener("keydown", (event) => {
    const action = KEYS[event.key]
    if (!action || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return
    event.preventDefault()
    show(step[action]())
  })
  show(0)
}

for (const viewer of document.querySelectorAll("[data-pgn-viewer]")) setUp(viewer)
