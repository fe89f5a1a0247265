// The entrant import's progress bar (see job-progress.js): "N of M rows checked", then
// "writing the entrants…"; the page reloads to render the outcome: the preview, the import,
// or the bad rows.
window.followJob("import-progress", "rows", function (job, box, part) {
  "use strict";

  var rows = part("rows");
  if (job.status === "pending") {
    rows.textContent = box.dataset.waitingText;
  } else if (job.phase === "saving" && !job.finished) {
    rows.textContent = box.dataset.savingText;
  } else {
    rows.textContent = box.dataset.rowsText
      .replace("%(done)s", window.formatCount(job.done_rows))
      .replace("%(total)s", window.formatCount(job.total_rows));
  }
});
