// The results import's progress bar (see job-progress.js): "line N of M read", then
// "checking every game and writing the results…"; the page reloads to render the outcome:
// the preview, what was imported, or the bad lines.
window.followJob("results-import-progress", "lines", function (job, box, part) {
  "use strict";

  var lines = part("lines");
  if (job.status === "pending") {
    lines.textContent = box.dataset.waitingText;
  } else if (job.phase === "saving" && !job.finished) {
    lines.textContent = box.dataset.savingText;
  } else {
    lines.textContent = box.dataset.linesText
      .replace("%(done)s", job.done_lines)
      .replace("%(total)s", job.total_lines)
      .replace("%(games)s", job.games);
  }
});
