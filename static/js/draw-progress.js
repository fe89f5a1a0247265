// The draw's progress bar (see job-progress.js): "N of M groups", then the outcome (digest
// or error); the page reloads to render the review.
window.followJob("draw-progress", "groups", function (job, box, part) {
  "use strict";

  var groups = part("groups");
  var error = part("error");
  groups.textContent = job.total_groups
    ? box.dataset.groupsText
        .replace("%(done)s", window.formatCount(job.done_groups))
        .replace("%(total)s", window.formatCount(job.total_groups))
    : job.finished
      ? ""
      : box.dataset.waitingText;
  if (job.error) {
    error.textContent = job.error;
    error.hidden = false;
  }
  if (job.status === "succeeded") {
    part("digest").textContent = job.digest;
    part("result").hidden = false;
  }
});
