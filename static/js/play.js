/* The board of a game played on this server (templates/play/game.html renders its markup).
 *
 * The page works without this script: every action is a plain form posting to the play app's
 * pages. With it, `[data-play]` gets a cm-chessboard showing `data-fen`, turned to the player's
 * side (`data-side`); when it is the player's move (`data-can-move`) a piece can be moved by
 * clicking its square and the target, or by dragging. chess.js only hints: it lets a move start
 * from a square with legal moves, marks their targets and asks for the promotion piece; the
 * server decides, and a move it refuses goes back with its sentence.
 *
 * Every form with `data-api` is sent to that API address as JSON (with `data-method`, or POST),
 * with the CSRF token of the form (the session's) in the X-CSRFToken header. After an answer the page is fetched again and
 * the parts marked `data-play-part` (status, clocks, actions, moves) are swapped in, so the
 * page shows what the server holds, without a reload. Until the game ends, its state
 * (`data-state-url`, the API's GET) is read every POLL_SECONDS and the parts are swapped in
 * when its ply, the standing draw offer or the result differ from the page's (`data-ply`,
 * `data-draw-offer`, `data-result`).
 *
 * cm-chessboard and chess.js come from npm: `make vendor` copies them into static/vendor/.
 */
import { Chessboard, COLOR, INPUT_EVENT_TYPE } from "../vendor/cm-chessboard/src/Chessboard.js"
import { Markers, MARKER_TYPE } from "../vendor/cm-chessboard/src/extensions/markers/Markers.js"
import {
  PromotionDialog,
  PROMOTION_DIALOG_RESULT_TYPE,
} from "../vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"
import { Chess } from "../vendor/chess.js/chess.js"

const POLL_SECONDS = 20

function legalMoves(fen, square) {
  try {
    return new Chess(fen).moves({ square, verbose: true })
  } catch {
    return []
  }
}

function setUp(root) {
  const boardElement = root.querySelector("[data-board]")
  const message = root.querySelector("[data-play-message]")
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
  const colour = (side) => (side === "black" ? COLOR.black : COLOR.white)
  let busy = false

  boardElement.hidden = false
  const board = new Chessboard(boardElement, {
    position: root.dataset.fen,
    orientation: colour(root.dataset.side),
    assetsUrl: root.dataset.assets,
    style: { pieces: { file: root.dataset.pieces }, animationDuration: still ? 0 : 200 },
    extensions: [
      { class: Markers, props: { autoMarkers: MARKER_TYPE.square } },
      { class: PromotionDialog },
    ],
  })

  function say(text, failed = false) {
    message.textContent = text || ""
    message.className = "play-messages" + (text ? " message message-" + (failed ? "error" : "success") : "")
    if (failed) message.setAttribute("role", "alert")
    else message.setAttribute("role", "status")
  }

  function csrfToken() {
    const field = root.querySelector("[name=csrfmiddlewaretoken]")
    return field ? field.value : ""
  }

  // The page as the server holds it now: its parts and the board's position and turn.
  async function refresh() {
    const response = await fetch(window.location.href, {
      headers: { Accept: "text/html" },
      credentials: "same-origin",
      cache: "no-store",
    })
    if (!response.ok) throw new Error("HTTP " + response.status)
    const page = new DOMParser().parseFromString(await response.text(), "text/html")
    const fresh = page.querySelector("[data-play]")
    if (!fresh) return
    const token = csrfToken()
    for (const part of root.querySelectorAll("[data-play-part]")) {
      const next = fresh.querySelector(`[data-play-part="${part.dataset.playPart}"]`)
      if (next) part.innerHTML = next.innerHTML
    }
    // A token the page was fetched with is as good as the one it had; keep the first.
    for (const field of root.querySelectorAll("[name=csrfmiddlewaretoken]")) field.value = token
    for (const key of ["fen", "ply", "turn", "canMove", "drawOffer", "result"]) {
      root.dataset[key] = fresh.dataset[key]
    }
    root.querySelector("[data-play-fen]").textContent = root.dataset.fen
    await board.setPosition(root.dataset.fen, !still)
    input()
  }

  // The form's fields as the API takes them: numbers as numbers, a check box as true or
  // false, a field marked data-words as a list of its words (move numbers left out).
  function body(form, extra = {}) {
    const data = {}
    for (const field of form.elements) {
      if (!field.name || field.name === "csrfmiddlewaretoken") continue
      if (field.type === "checkbox") data[field.name] = field.checked
      else if (field.name === "after_ply" || field.type === "number") {
        data[field.name] = Number(field.value)
      }
      else if ("words" in field.dataset) {
        data[field.name] = field.value.split(/[\s,]+/).filter((w) => w && !/^\d+\.*$/.test(w))
      } else data[field.name] = field.value
    }
    return { ...data, ...extra }
  }

  async function send(form, extra = {}) {
    if (busy) return
    busy = true
    say("")
    try {
      const response = await fetch(form.dataset.api, {
        method: form.dataset.method || "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-CSRFToken": csrfToken(),
        },
        body: JSON.stringify(body(form, extra)),
      })
      let answer = {}
      try {
        answer = await response.json()
      } catch {
        answer = {}
      }
      busy = false
      await refresh()
      if (response.ok) say(form.dataset.done)
      else say(answer.message || root.dataset.failed, true)
    } catch {
      busy = false
      say(root.dataset.failed, true)
      await board.setPosition(root.dataset.fen, false)
    }
  }

  function moveForm() {
    return root.querySelector("form[data-api].play-move-form")
  }

  function play(from, to, promotion) {
    const form = moveForm()
    if (!form) return
    send(form, { move: from + to + (promotion || "") })
  }

  function handle(event) {
    const fen = root.dataset.fen
    if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
      const moves = legalMoves(fen, event.squareFrom)
      if (moves.length) board.addLegalMovesMarkers(moves)
      return !busy && moves.length > 0
    }
    if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
      board.removeLegalMovesMarkers()
      const moves = legalMoves(fen, event.squareFrom).filter((m) => m.to === event.squareTo)
      if (!moves.length) return false
      if (moves.some((m) => m.promotion)) {
        board.showPromotionDialog(event.squareTo, colour(root.dataset.side), (choice) => {
          if (choice.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) {
            play(event.squareFrom, event.squareTo, choice.piece.charAt(1))
          } else {
            board.setPosition(fen, false)
          }
        })
        return true
      }
      play(event.squareFrom, event.squareTo)
      return true
    }
    if (event.type === INPUT_EVENT_TYPE.moveInputCanceled) board.removeLegalMovesMarkers()
    return true
  }

  function input() {
    board.disableMoveInput()
    if (root.dataset.canMove) board.enableMoveInput(handle, colour(root.dataset.side))
  }

  // Forms with data-api go to the API; data-confirm forms arrive here once confirmed
  // (static/js/confirm.js stops the first submit in the capture phase).
  root.addEventListener("submit", (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || !form.dataset.api) return
    event.preventDefault()
    send(form)
  })

  // What the other side may do meanwhile: move, offer a draw, resign. The page holds its
  // ply, the standing offer's side and the result; the API's state says whether they changed.
  const changed = (state) =>
    String(state.ply) !== root.dataset.ply ||
    (state.draw_offer ? state.draw_offer.side : "") !== root.dataset.drawOffer ||
    (state.result || "") !== root.dataset.result
  async function poll() {
    if (root.dataset.result) return
    if (document.visibilityState === "visible" && !busy) {
      try {
        const response = await fetch(root.dataset.stateUrl, {
          headers: { Accept: "application/json" },
          credentials: "same-origin",
          cache: "no-store",
        })
        if (response.ok && changed(await response.json())) await refresh()
      } catch {
        // The next look tries again.
      }
    }
    window.setTimeout(poll, POLL_SECONDS * 1000)
  }

  input()
  root.dataset.ready = "1"
  if (root.dataset.stateUrl) window.setTimeout(poll, POLL_SECONDS * 1000)
}

for (const root of document.querySelectorAll("[data-play]")) setUp(root)
