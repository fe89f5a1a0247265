/* The results grid: a game opens in a dialog instead of its own page; arrow keys move
   between the games one enters. Without this script every game is a link to its form page. */
(() => {
  "use strict";

  const grid = document.getElementById("results-grid");
  const dialog = document.getElementById("result-dialog");
  if (!grid || !dialog || typeof dialog.showModal !== "function") {
    return;
  }
  const form = dialog.querySelector("form");
  const title = document.getElementById("result-dialog-title");
  const now = document.getElementById("result-dialog-now");
  const fields = form.elements;
  const labels = {};
  for (const option of fields.result.options) {
    labels[option.value] = option.textContent;
  }
  let opener = null;

  function open(cell) {
    const result = cell.dataset.result;
    opener = cell;
    form.action = cell.getAttribute("href");
    fields.result.value = result;
    fields.adjudicated.checked = cell.dataset.adjudicated === "1";
    fields.version.value = cell.dataset.version;
    fields.reason.value = "";
    // Correcting a finished game needs a reason (the server checks it as well).
    fields.reason.required = result !== "";
    fields.next.value = `${window.location.pathname}#game-${cell.dataset.game}`;
    title.textContent = cell.dataset.title;
    now.textContent = result
      ? dialog.dataset.nowFinished.replace("%(result)s", labels[result])
      : dialog.dataset.nowOpen;
    dialog.showModal();
    fields.result.focus();
  }

  function cellsOf(row) {
    return Array.from(row.querySelectorAll("a.rc"));
  }

  function move(cell, key) {
    const row = cell.closest("tr");
    const cells = cellsOf(row);
    const index = cells.indexOf(cell);
    if (key === "ArrowLeft" || key === "ArrowRight") {
      return cells[index + (key === "ArrowLeft" ? -1 : 1)];
    }
    if (key === "Home" || key === "End") {
      return key === "Home" ? cells[0] : cells[cells.length - 1];
    }
    let next = key === "ArrowUp" ? row.previousElementSibling : row.nextElementSibling;
    while (next && cellsOf(next).length === 0) {
      next = key === "ArrowUp" ? next.previousElementSibling : next.nextElementSibling;
    }
    if (!next) {
      return undefined;
    }
    const below = cellsOf(next);
    return below[Math.min(index, below.length - 1)];
  }

  grid.addEventListener("click", (event) => {
    const cell = event.target.closest("a.rc");
    if (cell && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      open(cell);
    }
  });

  grid.addEventListener("keydown", (event) => {
    const cell = event.target.closest("a.rc");
    if (!cell) {
      return;
    }
    if (event.key === " ") {
      event.preventDefault();
      open(cell);
      return;
    }
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(event.key)) {
      const target = move(cell, event.key);
      event.preventDefault();
      if (target) {
        target.focus();
      }
    }
  });

  dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (opener) {
      opener.focus();
    }
  });

  // Back from a save: put the keyboard where the TD left off.
  if (window.location.hash.startsWith("#game-")) {
    const cell = document.getElementById(window.location.hash.slice(1));
    if (cell) {
      cell.focus();
    }
  }
})();
